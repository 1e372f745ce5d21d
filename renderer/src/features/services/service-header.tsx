import { Badge, Button, Group, Loader, Stack, Title, Tooltip } from '@mantine/core';
import { IconArrowBackUp, IconRocket } from '@tabler/icons-react';
import type { Deployment, Service } from '../../../../shared/schemas/services';
import { DeleteAction } from '../../kit/icon-action';
import { UrlLink } from '../publishing/url-link';
import { STATUS_COLOR } from './deployment-timeline';
import { useServiceSignIn } from './use-services';

/** The service's URL; with auth "token", opening it signs the browser in with a one-time link. */
function ServiceUrl({ service }: { service: Service }) {
  const signIn = useServiceSignIn(service.project, service.name);
  return <UrlLink url={service.url} signIn={service.url_settings.auth === 'token' ? signIn : undefined} />;
}

/** Which color serves the URL now, and which one is being deployed. */
function ColorBadges({ service, current }: { service: Service; current: Deployment | undefined }) {
  const active = service.active_deployment;
  return (
    <>
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
    </>
  );
}

/** Name, colors and URL; deploy, roll back, delete. */
export function ServiceHeader({
  service,
  current,
  canRollBack,
  rollingBack,
  onDeploy,
  onRollback,
  onDelete,
}: {
  service: Service;
  current: Deployment | undefined;
  canRollBack: boolean;
  rollingBack: boolean;
  onDeploy(): void;
  onRollback(): void;
  onDelete(): void;
}) {
  return (
    <Group justify="space-between" wrap="nowrap" align="start">
      <Stack gap={4}>
        <Group gap="sm">
          <Title order={3}>{service.name}</Title>
          <ColorBadges service={service} current={current} />
        </Group>
        <ServiceUrl service={service} />
      </Stack>
      <Group gap="xs" wrap="nowrap">
        <Button leftSection={<IconRocket size={16} />} onClick={onDeploy} aria-label={`Deploy ${service.name}`}>
          Deploy
        </Button>
        <Tooltip
          label={canRollBack ? 'Go back to the previous live deployment' : 'No earlier live deployment to go back to'}
        >
          <Button
            variant="default"
            leftSection={<IconArrowBackUp size={16} />}
            onClick={onRollback}
            loading={rollingBack}
            disabled={!canRollBack}
            aria-label={`Roll back ${service.name}`}
          >
            Roll back
          </Button>
        </Tooltip>
        <DeleteAction label={`Delete service ${service.name}`} tip={`Delete ${service.name}`} onClick={onDelete} />
      </Group>
    </Group>
  );
}
