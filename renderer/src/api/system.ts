import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TokenCreate } from '../../../shared/schemas/system';
import { anonymousClient, useClient } from './client-context';
import { queryKeys } from './query-keys';

/** /healthz; refreshed by engine.status events and when the event stream reconnects. */
export function useHealth() {
  return useQuery({ queryKey: queryKeys.health, queryFn: () => anonymousClient.health(), staleTime: Infinity });
}

export function useVersion() {
  return useQuery({ queryKey: queryKeys.version, queryFn: () => anonymousClient.version(), staleTime: 60_000 });
}

export function useSystem(enabled = true) {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.system, queryFn: () => client.system(), staleTime: 30_000, enabled });
}

export function useBases(enabled = true) {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.bases, queryFn: () => client.listBases(), staleTime: 30_000, enabled });
}

export function useTokens() {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.tokens, queryFn: () => client.listTokens() });
}

export function useCreateToken() {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: TokenCreate) => client.createToken(body),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.tokens }),
  });
}

export function useRevokeToken() {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => client.deleteToken(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.tokens }),
  });
}
