import { Badge, Tooltip } from '@mantine/core';
import type { EventStreamState } from '../api/events';
import { describeError } from '../api/session';
import type { DefaultBaseInfo } from '../../../shared/schemas/system';
import { useHealth } from '../api/system';

/**
 * The engine's health, always in view: /healthz, refreshed by engine.status events; with the
 * engine up, a default base boxes cannot start from (`base`, from /v1/system once signed in: its
 * image missing or still pulled) shows instead of "healthy", with what to do.
 */
export function EngineHealth({ stream, base }: { stream?: EventStreamState; base?: DefaultBaseInfo }) {
  const health = useHealth();
  let text: string;
  let color: string;
  let detail: string;
  if (stream === 'reconnecting') {
    text = 'Core: reconnecting…';
    color = 'orange';
    detail = 'The live event stream dropped; showing the last known state until it is back.';
  } else if (health.data?.status === 'ok' && base && !base.available) {
    text = 'Default base: missing';
    color = 'orange';
    detail = `New boxes cannot start from the default base: ${base.reason ?? `its image "${base.image}" is not in the engine`}`;
  } else if (health.data) {
    const up = health.data.status === 'ok';
    text = up ? 'Engine: healthy' : 'Engine: unreachable';
    color = up ? 'green' : 'red';
    detail = up
      ? `${health.data.cluster.engine} answers`
      : `${health.data.cluster.reason ?? 'no reason given'} — start the container engine; Boxdesk reconnects by itself.`;
  } else if (health.error) {
    text = 'Core: unreachable';
    color = 'red';
    detail = `${describeError(health.error)} — is the core running?`;
  } else {
    text = 'Engine: checking…';
    color = 'gray';
    detail = 'Asking the core';
  }
  return (
    <Tooltip label={detail} multiline w={280}>
      <Badge role="status" aria-label={`${text}. ${detail}`} color={color} variant="light" size="lg" tt="none">
        {text}
      </Badge>
    </Tooltip>
  );
}
