import { Anchor, Badge, Code, Group, Table } from '@mantine/core';
import { IconPlayerStop } from '@tabler/icons-react';
import type { Job } from '../../../../shared/schemas/jobs';
import { formatBytes } from '../../kit/format';
import { DeleteAction, IconAction } from '../../kit/icon-action';
import { TableHead } from '../../kit/table-head';
import { Time } from '../../kit/time';

const STATUS_COLOR = { running: 'blue', exited: 'green', killed: 'gray' } as const;

/** A box's jobs; a command opens its output. */
export function JobsTable({
  jobs,
  selected,
  onOpen,
  onKill,
  onDelete,
}: {
  jobs: Job[];
  selected: string | null;
  onOpen(job: Job): void;
  onKill(job: Job): void;
  onDelete(job: Job): void;
}) {
  return (
    <Table aria-label="Jobs" striped verticalSpacing="xs">
      <TableHead columns={['Command', 'Status', 'Exit code', 'Output', 'Started']} actions />
      <Table.Tbody>
        {jobs.map((j) => {
          const command = j.command.join(' ');
          return (
            <Table.Tr key={j.id} aria-selected={j.id === selected}>
              <Table.Th scope="row">
                <Anchor component="button" type="button" onClick={() => onOpen(j)} title={`${j.id}: show its output`}>
                  <Code>{command}</Code>
                </Anchor>
              </Table.Th>
              <Table.Td>
                <Badge color={STATUS_COLOR[j.status]} variant="light">
                  {j.status}
                </Badge>
              </Table.Td>
              <Table.Td>{j.exit_code ?? '—'}</Table.Td>
              <Table.Td>
                {formatBytes(j.stdout_bytes)} / {formatBytes(j.stderr_bytes)}
              </Table.Td>
              <Table.Td>
                <Time at={j.started_at} />
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  {j.status === 'running' && (
                    <IconAction
                      label={`Kill ${command}`}
                      tip="Kill"
                      icon={IconPlayerStop}
                      color="orange"
                      onClick={() => onKill(j)}
                    />
                  )}
                  <DeleteAction label={`Delete job ${command}`} onClick={() => onDelete(j)} />
                </Group>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
