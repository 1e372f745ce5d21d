import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Center,
  Code,
  Group,
  Loader,
  Paper,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconArrowBackUp, IconExternalLink, IconRocket, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import type { Service } from '../../../../shared/schemas/services';
import { useApi } from '../../api/client-context';
import { useDeleteService, useDeployments, useRollback } from '../../api/services';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import { paths } from '../../app/project';
import { DeployDialog } from './deploy-dialog';
import { DeploymentTimeline, STATUS_COLOR, STATUS_LABEL, inProgress } from './deployment-timeline';
import { commandText } from './service-form';

/** The service's URL, opening in the system browser (a new tab when served); with auth "token", once with ?token=. */
function ServiceUrl({ service }: { service: Service }) {
  const { token } = useApi();
  const signIn = () => {
    const target = new URL(service.url);
    target.searchParams.set('token', token);
    window.open(target.toString(), '_blank', 'noopener');
  };
  return (
    <Group gap="xs" wrap="nowrap">
      <Anchor
        href={service.url}
        target="_blank"
        rel="noopener"
        fw={500}
        style={{ wordBreak: 'break-all' }}
        aria-label={`Open ${service.url} in the browser`}
      >
        <Group gap={4} wrap="nowrap" component="span">
          {service.url}
          <IconExternalLink size={16} aria-hidden />
        </Group>
      </Anchor>
      {service.url_settings.auth === 'token' && (
        <Tooltip label="The URL asks for a token: this adds the window’s token once, the proxy keeps it as a cookie">
          <Button size="compact-xs" variant="light" onClick={signIn}>
            Open with sign-in
          </Button>
        </Tooltip>
      )}
    </Group>
  );
}

/** One service: URL, live color, the deployment under way, deploy / rollback / delete, and the history. */
export function ServiceCard({ service }: { service: Service }) {
  const deployments = useDeployments(service.project, service.name);
  const rollback = useRollback(service.project);
  const remove = useDeleteService(service.project);
  const [deploying, setDeploying] = useState(false);
  const [failure, setFailure] = useState<{ what: string; error: unknown } | null>(null);
  const items = deployments.data ?? [];
  const current = items.find(inProgress);
  const active = service.active_deployment;
  // The boxes that exist: the live color's and the one being deployed (a replaced color's box is removed).
  const boxes = [...new Set([active?.box, current?.box].filter((b): b is string => b !== undefined))].sort();
  // A rollback needs an earlier deployment that was live.
  const canRollBack = items.some((d) => d.status === 'superseded' || d.status === 'rolled_back');

  const startRollback = () => {
    setFailure(null);
    rollback.mutate(service.name, { onError: (error) => setFailure({ what: 'roll back', error }) });
  };
  const confirmDelete = () =>
    modals.openConfirmModal({
      title: `Delete the service ${service.name}?`,
      children: (
        <Text size="sm">
          Its boxes ({boxes.join(', ') || 'none now'}), its URL and its deployment history go with it. This cannot be
          undone.
        </Text>
      ),
      labels: { confirm: 'Delete service', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => {
        setFailure(null);
        remove.mutate(service.name, {
          onSuccess: () => notifyDone(`Deleted ${service.name}`, 'Its boxes and URL are gone.'),
          onError: (error) => setFailure({ what: 'delete', error }),
        });
      },
    });

  return (
    <Card withBorder padding="lg" component="section" aria-label={`Service ${service.name}`} maw={900}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap" align="start">
          <Stack gap={4}>
            <Group gap="sm">
              <Title order={3}>{service.name}</Title>
              {active ? (
                <Badge
                  color={active.color === 'blue' ? 'blue' : 'green'}
                  variant="filled"
                  role="status"
                  aria-label={`Live color: ${active.color}`}
                >
                  live: {active.color}
                </Badge>
              ) : (
                <Badge color="gray" variant="outline" role="status" aria-label="Live color: none">
                  nothing live
                </Badge>
              )}
              {current && (
                <Badge
                  color={STATUS_COLOR[current.status]}
                  variant="light"
                  leftSection={<Loader size={10} color={STATUS_COLOR[current.status]} />}
                >
                  {current.kind === 'rollback' ? 'rolling back' : 'deploying'} {current.color}
                </Badge>
              )}
            </Group>
            <ServiceUrl service={service} />
          </Stack>
          <Group gap="xs" wrap="nowrap">
            <Button
              leftSection={<IconRocket size={16} />}
              onClick={() => setDeploying(true)}
              aria-label={`Deploy ${service.name}`}
            >
              Deploy
            </Button>
            <Tooltip
              label={
                canRollBack ? 'Go back to the previous live deployment' : 'No earlier live deployment to go back to'
              }
            >
              <Button
                variant="default"
                leftSection={<IconArrowBackUp size={16} />}
                onClick={startRollback}
                loading={rollback.isPending}
                disabled={!canRollBack}
                aria-label={`Roll back ${service.name}`}
              >
                Roll back
              </Button>
            </Tooltip>
            <Tooltip label={`Delete ${service.name}`}>
              <ActionIcon
                variant="subtle"
                color="red"
                size="lg"
                aria-label={`Delete service ${service.name}`}
                onClick={confirmDelete}
              >
                <IconTrash size={18} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Group>

        {current && (
          // A live region of its own (an Alert would name itself by its title and announce as an alert).
          <Paper
            withBorder
            p="sm"
            radius="md"
            role="status"
            aria-label={`Progress of ${service.name}`}
            style={{ borderLeft: `4px solid var(--mantine-color-${STATUS_COLOR[current.status]}-filled)` }}
          >
            <Group gap="sm" wrap="nowrap" align="start">
              <Loader size="sm" color={STATUS_COLOR[current.status]} mt={2} />
              <div>
                <Text fw={500} size="sm">
                  {current.kind === 'rollback' ? 'Rolling back' : 'Deploying'} to {current.color}:{' '}
                  {STATUS_LABEL[current.status]}
                </Text>
                <Text size="sm">{current.step ?? 'Waiting for its turn…'}</Text>
              </div>
            </Group>
          </Paper>
        )}
        {failure && (
          <Alert
            color="red"
            role="alert"
            title={`Could not ${failure.what} ${service.name}`}
            withCloseButton
            closeButtonLabel="Dismiss"
            onClose={() => setFailure(null)}
          >
            {describeError(failure.error)}
          </Alert>
        )}

        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            Command: {service.command ? <Code>{commandText(service.command)}</Code> : 'the base’s own'}
          </Text>
          <Text size="sm" c="dimmed">
            Base {service.base} · port {service.port} · health check <Code>GET {service.health_check.path}</Code> every{' '}
            {service.health_check.interval_s} s, {service.health_check.healthy_threshold} in a row · access{' '}
            {service.url_settings.auth}
          </Text>
        </Stack>
        {boxes.length > 0 && (
          <Group gap="xs">
            <Text size="sm">Boxes:</Text>
            {boxes.map((b) => (
              <Anchor
                key={b}
                component={Link}
                to={paths.box(service.project, b)}
                size="sm"
                aria-label={`Open box ${b}`}
              >
                {b}
              </Anchor>
            ))}
          </Group>
        )}

        <Title order={4} size="h5">
          Deployments
        </Title>
        {deployments.isPending && (
          <Center role="status">
            <Loader size="sm" mr="sm" /> Loading deployments…
          </Center>
        )}
        {deployments.isError && (
          <Alert color="red" role="alert" title="Could not load the deployments">
            {describeError(deployments.error)}
          </Alert>
        )}
        {deployments.data &&
          (items.length ? (
            <DeploymentTimeline service={service.name} items={items} />
          ) : (
            <Text size="sm">No deployments yet: press Deploy.</Text>
          ))}
      </Stack>
      <DeployDialog service={service} opened={deploying} onClose={() => setDeploying(false)} />
    </Card>
  );
}
