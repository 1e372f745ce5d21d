import { Alert, Anchor, Breadcrumbs, Button, Center, Loader, Stack, Tabs, Text } from '@mantine/core';
import { Suspense, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Box } from '../../../../shared/schemas/box';
import { describeError } from '../../api/session';
import { paths, useProject } from '../../app/project';
import { useRegistry } from '../../app/registry';
import { BoxFormDialog } from './box-form-dialog';
import { BoxHeader } from './box-header';
import { useBoxActions } from './use-box-actions';
import { useBox } from './use-boxes';

/** The tabs every feature adds to a box's page; the address names the open one. */
function BoxTabs({ box, tab }: { box: Box; tab: string }) {
  const { tabs } = useRegistry();
  const navigate = useNavigate();
  const current = tabs.some((t) => t.value === tab) ? tab : 'overview';
  return (
    <Tabs value={current} onChange={(v) => v && void navigate(paths.box(box.project, box.name, v))} keepMounted={false}>
      <Tabs.List>
        {tabs.map((t) => (
          <Tabs.Tab key={t.value} value={t.value} leftSection={<t.icon size={16} />}>
            {t.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {tabs.map((t) => (
        <Tabs.Panel key={t.value} value={t.value} pt="sm">
          <Suspense
            fallback={
              <Center role="status" p="xl">
                <Loader size="sm" />
              </Center>
            }
          >
            <t.Component box={box} />
          </Suspense>
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}

/** A box: its header and actions, then its tabs. */
export function BoxDetailPage() {
  const project = useProject();
  const { name = '', tab = 'overview' } = useParams();
  const navigate = useNavigate();
  const box = useBox(project, name);
  const actions = useBoxActions(project);
  const [editing, setEditing] = useState(false);

  const crumbs = (
    <Breadcrumbs aria-label="Breadcrumb">
      <Anchor component={Link} to={paths.boxes(project)}>
        Boxes in {project}
      </Anchor>
      <Text>{name}</Text>
    </Breadcrumbs>
  );
  if (box.isPending)
    return (
      <Stack>
        {crumbs}
        <Center role="status" p="xl">
          <Loader size="sm" mr="sm" /> Loading {name}…
        </Center>
      </Stack>
    );
  if (!box.data)
    return (
      <Stack>
        {crumbs}
        <Alert color="red" title={`No box ${name} here`} role="alert">
          <Text size="sm">{box.error ? describeError(box.error) : 'It was deleted.'}</Text>
          <Button mt="sm" size="xs" variant="light" component={Link} to={paths.boxes(project)}>
            Back to the boxes
          </Button>
        </Alert>
      </Stack>
    );
  return (
    <Stack gap="sm">
      {crumbs}
      <BoxHeader
        box={box.data}
        actions={actions}
        onEdit={() => setEditing(true)}
        onDeleted={() => void navigate(paths.boxes(project))}
      />
      <BoxTabs box={box.data} tab={tab} />
      <BoxFormDialog project={project} opened={editing} onClose={() => setEditing(false)} box={box.data} />
    </Stack>
  );
}
