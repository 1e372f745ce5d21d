import { Anchor, Badge, Code, Group, Loader, Text, ThemeIcon, Timeline } from '@mantine/core';
import { IconArrowBackUp, IconCheck, IconRocket, IconX } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { Deployment, DeploymentStatus } from '../../../../shared/schemas/services';
import { FINAL_DEPLOYMENT_STATUSES } from '../../../../shared/schemas/services';
import { paths } from '../../app/project';
import { Time } from '../../kit/time';

export const STATUS_COLOR: Record<DeploymentStatus, string> = {
  pending: 'gray',
  starting: 'yellow',
  healthy: 'teal',
  live: 'green',
  failed: 'red',
  rolled_back: 'gray',
  superseded: 'gray',
};

export const STATUS_LABEL: Record<DeploymentStatus, string> = {
  pending: 'pending',
  starting: 'starting',
  healthy: 'healthy',
  live: 'live',
  failed: 'failed',
  rolled_back: 'rolled back',
  superseded: 'superseded',
};

/** Still doing something: not in a final status yet, or live and still draining / removing the old color. */
export const inProgress = (d: Deployment) => !FINAL_DEPLOYMENT_STATUSES.includes(d.status) || d.step !== null;

function bullet(d: Deployment) {
  if (inProgress(d)) return <Loader size={14} color={STATUS_COLOR[d.status]} aria-hidden />;
  const Icon =
    d.status === 'failed'
      ? IconX
      : d.status === 'live'
        ? IconCheck
        : d.kind === 'rollback'
          ? IconArrowBackUp
          : IconRocket;
  return (
    <ThemeIcon
      size={20}
      radius="xl"
      color={STATUS_COLOR[d.status]}
      variant={d.status === 'live' ? 'filled' : 'light'}
      aria-hidden
    >
      <Icon size={12} />
    </ThemeIcon>
  );
}

/** "VERSION=2 BASE=…" for the variables a deployment ran with. */
const envText = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');

/** The deployment history, newest first: status, color, what ran, the steps of one in progress, the reason of a failure. */
export function DeploymentTimeline({ service, items }: { service: string; items: Deployment[] }) {
  // Newest first, so Timeline's "active up to index" highlighting does not fit; each bullet carries its own color.
  return (
    <Timeline active={-1} bulletSize={22} lineWidth={2} aria-label={`Deployments of ${service}`} role="list">
      {items.map((d) => (
        <Timeline.Item
          key={d.id}
          bullet={bullet(d)}
          role="listitem"
          aria-label={`${d.kind === 'rollback' ? 'Rollback' : 'Deployment'} ${d.id}: ${STATUS_LABEL[d.status]} on ${d.color}`}
          title={
            <Group gap={6} wrap="wrap">
              <Text fw={500} size="sm">
                {d.kind === 'rollback' ? 'Rollback' : 'Deploy'}
              </Text>
              <Badge size="sm" variant="light" color={STATUS_COLOR[d.status]}>
                {STATUS_LABEL[d.status]}
              </Badge>
              <Badge size="sm" variant="dot" color={d.color === 'blue' ? 'blue' : 'green'}>
                {d.color}
              </Badge>
              <Text size="xs" c="dimmed">
                <Time at={d.created_at} />
              </Text>
            </Group>
          }
        >
          {d.step && (
            <Text size="sm" role="status" aria-label={`Step of ${d.id}`}>
              {d.step}
            </Text>
          )}
          {d.reason && (
            <Text size="sm" c="red" style={{ whiteSpace: 'pre-wrap' }}>
              {d.reason}
            </Text>
          )}
          <Text size="xs" c="dimmed">
            <Code>{d.id}</Code> · base {d.base}
            {Object.keys(d.environment).length ? (
              <>
                {' '}
                · <Code>{envText(d.environment)}</Code>
              </>
            ) : null}{' '}
            · box{' '}
            {d.status === 'live' || inProgress(d) ? (
              <Anchor component={Link} to={paths.box(d.project, d.box)} size="xs" aria-label={`Open box ${d.box}`}>
                {d.box}
              </Anchor>
            ) : (
              // A replaced or failed color's box has been removed.
              d.box
            )}
          </Text>
        </Timeline.Item>
      ))}
    </Timeline>
  );
}
