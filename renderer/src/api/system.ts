import { useQuery } from '@tanstack/react-query';
import { anonymousClient, useClient } from './client-context';
import { queryKeys } from './query-keys';

/** /healthz; refreshed by engine.status events and when the event stream reconnects. */
export function useHealth() {
  return useQuery({ queryKey: queryKeys.health, queryFn: () => anonymousClient.health(), staleTime: Infinity });
}

export function useVersion() {
  return useQuery({ queryKey: queryKeys.version, queryFn: () => anonymousClient.version(), staleTime: 60_000 });
}

/** The core's settings and the engine's capacity (Settings, and the box form's bounds). */
export function useSystem(enabled = true) {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.system, queryFn: () => client.system(), staleTime: 30_000, enabled });
}

/** The regions (GET /v1/regions): refreshed by engine.status events and box creates and deletes. */
export function useRegions(enabled = true) {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.regions, queryFn: () => client.regions(), staleTime: 30_000, enabled });
}
