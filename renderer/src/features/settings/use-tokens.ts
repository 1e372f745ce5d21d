import { useQuery } from '@tanstack/react-query';
import type { TokenCreate } from '../../../../shared/schemas/system';
import { useClient } from '../../api/client-context';
import { useClientMutation } from '../../api/client-mutation';

const tokenKeys = { list: ['tokens'] as const };

export function useTokens() {
  const client = useClient();
  return useQuery({ queryKey: tokenKeys.list, queryFn: () => client.listTokens() });
}

export function useCreateToken() {
  return useClientMutation((c, body: TokenCreate) => c.createToken(body), tokenKeys.list);
}

export function useRevokeToken() {
  return useClientMutation((c, id: string) => c.deleteToken(id), tokenKeys.list);
}
