import { Badge, Button, Group, List, Menu, Text, ThemeIcon } from '@mantine/core';
import { IconBox, IconCamera, IconCopy, IconHistory, IconStack2, IconTrash } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { Snapshot } from '../../../../shared/schemas/snapshots';
import { paths } from '../../app/project';
import { formatBytes } from '../../kit/format';
import { Time } from '../../kit/time';
import type { LineageNode } from './lineage';

export type SnapshotAction = 'restore' | 'fork' | 'base' | 'delete';

interface TreeProps {
  nodes: LineageNode[];
  project: string;
  box: string;
  onAction(action: SnapshotAction, snapshot: Snapshot): void;
}

/**
 * The lineage as nested lists: each snapshot a menu button (its accessible
 * name "Snapshot NAME"), each box a link, each base a plain label.
 */
export function LineageTree({ nodes, project, box, onAction }: TreeProps) {
  return (
    <List listStyleType="none" withPadding={false} spacing={4} aria-label="Lineage">
      {nodes.map((n) => (
        <Node key={keyOf(n)} node={n} project={project} box={box} onAction={onAction} />
      ))}
    </List>
  );
}

function keyOf(n: LineageNode): string {
  return n.kind === 'snapshot' ? n.snapshot.id : n.kind === 'base' ? `base:${n.name}` : `box:${n.box.name}`;
}

function Children({ nodes, ...rest }: TreeProps) {
  if (nodes.length === 0) return null;
  return (
    <List
      listStyleType="none"
      spacing={4}
      mt={4}
      ml={11}
      pl="md"
      style={{ borderLeft: '1px solid var(--mantine-color-default-border)' }}
    >
      {nodes.map((n) => (
        <Node key={keyOf(n)} node={n} {...rest} />
      ))}
    </List>
  );
}

type NodeProps = Omit<TreeProps, 'nodes'>;

function Node({ node, ...rest }: { node: LineageNode } & NodeProps) {
  if (node.kind === 'base') return <BaseNode node={node} {...rest} />;
  if (node.kind === 'box') return <BoxNode node={node} project={rest.project} />;
  return <SnapshotNode node={node} {...rest} />;
}

function BaseNode({ node, ...rest }: { node: Extract<LineageNode, { kind: 'base' }> } & NodeProps) {
  return (
    <List.Item>
      <Group gap="xs" aria-label={`Base ${node.name}`} role="group">
        <ThemeIcon variant="light" color="gray" size="sm" aria-hidden>
          <IconStack2 size={14} />
        </ThemeIcon>
        <Text size="sm" fw={600}>
          {node.name}
        </Text>
        <Text size="xs" c="dimmed">
          base
        </Text>
      </Group>
      <Children nodes={node.children} {...rest} />
    </List.Item>
  );
}

function BoxNode({ node, project }: { node: Extract<LineageNode, { kind: 'box' }>; project: string }) {
  return (
    <List.Item>
      <Group gap="xs">
        <ThemeIcon variant="light" color={node.current ? 'blue' : 'teal'} size="sm" aria-hidden>
          <IconBox size={14} />
        </ThemeIcon>
        {node.current ? (
          <Text size="sm" fw={600} aria-label={`Box ${node.box.name} (this box)`}>
            {node.box.name} (this box)
          </Text>
        ) : (
          <Text
            component={Link}
            to={paths.box(project, node.box.name)}
            size="sm"
            c="blue"
            aria-label={`Box ${node.box.name}`}
          >
            {node.box.name}
          </Text>
        )}
        <Badge size="xs" variant="outline" color={node.box.status === 'running' ? 'green' : 'gray'}>
          {node.box.status}
        </Badge>
      </Group>
    </List.Item>
  );
}

/** A snapshot: a menu button with what can be done with it, and what descends from it below. */
function SnapshotNode({ node, ...rest }: { node: Extract<LineageNode, { kind: 'snapshot' }> } & NodeProps) {
  const s = node.snapshot;
  return (
    <List.Item>
      <Menu position="bottom-start" withinPortal>
        <Menu.Target>
          <Button
            variant="subtle"
            size="compact-sm"
            px={4}
            leftSection={<IconCamera size={16} />}
            aria-label={`Snapshot ${s.name}`}
          >
            {s.name}
            <Text span size="xs" c="dimmed" ml="xs">
              {s.box} · {formatBytes(s.size_bytes)}
              {s.exclusive_bytes !== undefined && s.exclusive_bytes !== null && (
                <span title="What deleting this snapshot would free"> · frees {formatBytes(s.exclusive_bytes)}</span>
              )}{' '}
              · <Time at={s.created_at} />
            </Text>
          </Button>
        </Menu.Target>
        <Menu.Dropdown aria-label={`Actions on snapshot ${s.name}`}>
          <Menu.Item leftSection={<IconHistory size={14} />} onClick={() => rest.onAction('restore', s)}>
            Restore {rest.box} to this snapshot
          </Menu.Item>
          <Menu.Item leftSection={<IconCopy size={14} />} onClick={() => rest.onAction('fork', s)}>
            Fork into a new box
          </Menu.Item>
          <Menu.Item leftSection={<IconStack2 size={14} />} onClick={() => rest.onAction('base', s)}>
            Make a base
          </Menu.Item>
          <Menu.Divider />
          <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={() => rest.onAction('delete', s)}>
            Delete snapshot
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <Children nodes={node.children} {...rest} />
    </List.Item>
  );
}
