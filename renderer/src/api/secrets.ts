import { useQuery } from '@tanstack/react-query';
import type { SecretCreate } from '../../../shared/schemas/secrets';
import { useClient } from './client-context';
import { useClientMutation } from './client-mutation';

const secretKeys = { list: ['secrets'] as const };

/** The secrets (names, hosts, header; never values): Settings lists them, the box form picks them. */
export function useSecrets(enabled = true) {
  const client = useClient();
  return useQuery({ queryKey: secretKeys.list, queryFn: () => client.listSecrets(), enabled });
}

export function useCreateSecret() {
  return useClientMutation((c, body: SecretCreate) => c.createSecret(body), secretKeys.list);
}

export function useDeleteSecret() {
  return useClientMutation((c, name: string) => c.deleteSecret(name), secretKeys.list);
}
