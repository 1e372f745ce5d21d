import { Anchor, Card, Code, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import type { Deployment, Service } from '../../../../shared/schemas/services';
import { paths } from '../../app/project';
import { confirmNamedDelete } from '../../kit/confirm-destroy';
import { FailureAlert, type Failure } from '../../kit/failure-alert';
import { QueryStates } from '../../kit/query-states';
import { DeployDialog } from './deploy-dialog';
import { DeploymentTimeline, STATUS_COLOR, STATUS_LABEL, inProgress } from './deployment-timeline';
import { commandText } from './service-form';
import { ServiceHeader } from './service-header';
import { useDeleteService, useDeployments, useRollback } from './use-services';

/** The deployment under way, step by step (a live region of its own: an Alert would announce as an alert). */
function DeploymentProgress({ service, current }: { service: string; current: Deployment }) {
  const color = STATUS_COLOR[current.status];
  return (
    <Paper
      withBorder
      p="sm"
      radius="md"
      role="status"
      aria-label={`Progress of ${service}`}
      style={{ borderLeft: `4px solid var(--mantine-color-${color}-filled)` }}
    >
      <Group gap="sm" wrap="nowrap" align="start">
        <Loader size="sm" color={color} mt={2} />
        <div>
          <Text fw={500} size="sm">
            {current.kind === 'rollback' ? 'Rolling back' : 'Deploying'} to {current.color}:{' '}
            {STATUS_LABEL[current.status]}
          </Text>
          <Text size="sm">{current.step ?? 'Waiting for its turn…'}</Text>
        </div>
      </Group>
    </Paper>
  );
}

const commandOf = (command: string[] | null) => (command ? <Code>{commandText(command)}</Code> : 'the base’s own');

/**
 * What runs (the live deployment's command and base), what the next deploy will run when the
 * spec differs (a failed deploy's command is never shown as live), port, health check, access,
 * and the boxes that exist for it.
 */
function ServiceSpec({ service, boxes }: { service: Service; boxes: string[] }) {
  const hc = service.health_check;
  const live = service.active_deployment;
  const specDiffers = !live || commandText(live.command) !== commandText(service.command) || live.base !== service.base;
  return (
    <>
      <Stack gap={2}>
        <Text size="sm" c="dimmed">
          Live:{' '}
          {live ? (
            <>
              {commandOf(live.command)} from base {live.base}
            </>
          ) : (
            'nothing yet'
          )}
        </Text>
        {specDiffers && (
          <Text size="sm" c="dimmed">
            Next deploy: {commandOf(service.command)} from base {service.base}
          </Text>
        )}
        <Text size="sm" c="dimmed">
          Port {service.port} · health check <Code>GET {hc.path}</Code> every {hc.interval_s} s, {hc.healthy_threshold}{' '}
          in a row · access {service.url_settings.auth}
        </Text>
      </Stack>
      {boxes.length > 0 && (
        <Group gap="xs">
          <Text size="sm">Boxes:</Text>
          {boxes.map((b) => (
            <Anchor key={b} component={Link} to={paths.box(service.project, b)} size="sm" aria-label={`Open box ${b}`}>
              {b}
            </Anchor>
          ))}
        </Group>
      )}
    </>
  );
}

/** One service: URL, live color, the deployment under way, deploy / rollback / delete, and the history. */
export function ServiceCard({ service }: { service: Service }) {
  const deployments = useDeployments(service.project, service.name);
  const rollback = useRollback(service.project);
  const remove = useDeleteService(service.project);
  const [deploying, setDeploying] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const items = deployments.data ?? [];
  const current = items.find(inProgress);
  // The boxes that exist: the live color's and the one being deployed (a replaced color's box is removed).
  const boxes = [...new Set([service.active_deployment?.box, current?.box].filter((b) => b !== undefined))].sort();

  const startRollback = () => {
    setFailure(null);
    rollback.mutate(service.name, {
      onError: (error) => setFailure({ title: `Could not roll back ${service.name}`, error }),
    });
  };
  const confirmDelete = () =>
    confirmNamedDelete('service', service.name, {
      goes: `Its boxes (${boxes.join(', ') || 'none now'}), its URL and its deployment history go with it.`,
      affects: 'This cannot be undone.',
      run: () => remove.mutateAsync(service.name),
      gone: 'Its boxes and URL are gone.',
    });

  return (
    <Card withBorder padding="lg" component="section" aria-label={`Service ${service.name}`} maw={900}>
      <Stack gap="sm">
        <ServiceHeader
          service={service}
          current={current}
          // A rollback needs an earlier deployment that was live.
          canRollBack={items.some((d) => d.status === 'superseded' || d.status === 'rolled_back')}
          rollingBack={rollback.isPending}
          onDeploy={() => setDeploying(true)}
          onRollback={startRollback}
          onDelete={confirmDelete}
        />
        {current && <DeploymentProgress service={service.name} current={current} />}
        <FailureAlert failure={failure} onDismiss={() => setFailure(null)} />
        <ServiceSpec service={service} boxes={boxes} />
        <Title order={4} size="h5">
          Deployments
        </Title>
        <QueryStates query={deployments} what="the deployments" empty="No deployments yet: press Deploy.">
          {(list) => <DeploymentTimeline service={service.name} items={list} />}
        </QueryStates>
      </Stack>
      <DeployDialog service={service} opened={deploying} onClose={() => setDeploying(false)} />
    </Card>
  );
}
