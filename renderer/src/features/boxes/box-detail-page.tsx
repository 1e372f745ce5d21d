import { Alert, Anchor, Breadcrumbs, Button, Center, Group, Loader, Stack, Tabs, Text, Title } from '@mantine/core';
import { IconEdit, IconPlayerPlay, IconPlayerStop, IconTrash } from '@tabler/icons-react';
import { Suspense, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useBox } from '../../api/boxes';
import { describeError } from '../../api/session';
import { paths, useProject } from '../../app/project';
import { BoxFormDialog } from './box-form-dialog';
import { DETAIL_TABS } from './detail-tabs';
import { StatusBadge, isTransitioning } from './status-badge';
import { useBoxActions } from './use-box-actions';

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
  if (box.isPending) {
    return (
      <Stack>
        {crumbs}
        <Center role="status" p="xl">
          <Loader size="sm" mr="sm" /> Loading {name}…
        </Center>
      </Stack>
    );
  }
  if (!box.data) {
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
  }
  const b = box.data;
  const busy = isTransitioning(b.status);
  const current = DETAIL_TABS.some((t) => t.value === tab) ? tab : 'overview';

  return (
    <Stack gap="sm">
      {crumbs}
      <Group justify="space-between">
        <Group gap="sm">
          <Title order={2}>{b.name}</Title>
          <StatusBadge box={b} />
        </Group>
        <Group gap="xs">
          {b.status === 'stopped' ? (
            <Button
              variant="default"
              leftSection={<IconPlayerPlay size={16} />}
              onClick={() => void actions.resume([b.name])}
              loading={actions.pending}
            >
              Resume
            </Button>
          ) : (
            <Button
              variant="default"
              leftSection={<IconPlayerStop size={16} />}
              onClick={() => void actions.stop([b.name])}
              disabled={busy || b.status === 'error'}
              loading={actions.pending}
            >
              Stop
            </Button>
          )}
          <Button
            variant="default"
            leftSection={<IconEdit size={16} />}
            onClick={() => setEditing(true)}
            disabled={busy}
          >
            Edit
          </Button>
          <Button
            color="red"
            variant="light"
            leftSection={<IconTrash size={16} />}
            onClick={() => actions.confirmDelete([b.name], () => void navigate(paths.boxes(project)))}
          >
            Delete
          </Button>
        </Group>
      </Group>
      {b.status === 'error' && b.status_reason && (
        <Alert color="red" title="This box failed" role="alert">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {b.status_reason}
          </Text>
          <Text size="sm" mt="xs">
            Delete it and create it again; its logs may say more.
          </Text>
        </Alert>
      )}
      <Tabs value={current} onChange={(v) => v && void navigate(paths.box(project, b.name, v))} keepMounted={false}>
        <Tabs.List>
          {DETAIL_TABS.map((t) => (
            <Tabs.Tab key={t.value} value={t.value} leftSection={<t.icon size={16} />}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {DETAIL_TABS.map((t) => (
          <Tabs.Panel key={t.value} value={t.value} pt="sm">
            <Suspense
              fallback={
                <Center role="status" p="xl">
                  <Loader size="sm" />
                </Center>
              }
            >
              <t.Component box={b} />
            </Suspense>
          </Tabs.Panel>
        ))}
      </Tabs>
      <BoxFormDialog project={project} opened={editing} onClose={() => setEditing(false)} box={b} />
    </Stack>
  );
}
