import type { QueryClient } from '@tanstack/react-query';
import type { DeployRequest, Deployment, Service, ServiceCreate } from '../../../../shared/schemas/services';
import { useClient } from '../../api/client-context';
import { useEventQuery } from '../../api/client-query';
import { useClientMutation } from '../../api/client-mutation';
import type { SignIn } from '../publishing/url-link';

/** The services' queries; the module's event rules patch them. */
export const serviceKeys = {
  project: (project: string) => ['services', project] as const,
  deployments: (project: string, service: string) => ['deployments', project, service] as const,
};

/** A project's services; kept current by service.* events. */
export function useServices(project: string) {
  return useEventQuery(serviceKeys.project(project), async (client) => (await client.services.list(project)).items);
}

/** A service's deployments, newest first; each deployment.updated event patches its entry. */
export function useDeployments(project: string, service: string) {
  return useEventQuery(
    serviceKeys.deployments(project, service),
    async (client) => (await client.services.deployments(project, service)).items,
  );
}

/** Puts what an answer or an event says in a list: whichever changed last wins (an answer may trail an event). */
function upsert<T extends { updated_at: string }>(
  old: T[] | undefined,
  item: T,
  same: (a: T) => boolean,
  order: (a: T, b: T) => number,
): T[] | undefined {
  if (!old) return old;
  const at = old.findIndex(same);
  if (at === -1) return [...old, item].sort(order);
  if (old[at]!.updated_at > item.updated_at) return old;
  return old.map((x, i) => (i === at ? item : x));
}

export function upsertService(qc: QueryClient, service: Service): void {
  qc.setQueryData<Service[]>(serviceKeys.project(service.project), (old) =>
    upsert(
      old,
      service,
      (s) => s.name === service.name,
      (a, b) => a.name.localeCompare(b.name),
    ),
  );
}

export function removeService(qc: QueryClient, service: Service): void {
  qc.setQueryData<Service[]>(serviceKeys.project(service.project), (old) =>
    old?.filter((s) => s.name !== service.name),
  );
  qc.removeQueries({ queryKey: serviceKeys.deployments(service.project, service.name) });
}

export function upsertDeployment(qc: QueryClient, d: Deployment): void {
  qc.setQueryData<Deployment[]>(serviceKeys.deployments(d.project, d.service), (old) =>
    upsert(
      old,
      d,
      (x) => x.id === d.id,
      (a, b) => b.created_at.localeCompare(a.created_at),
    ),
  );
}

export function useCreateService(project: string) {
  return useClientMutation((c, body: ServiceCreate) => c.services.create(project, body), upsertService);
}

export function useDeleteService(project: string) {
  return useClientMutation(
    (c, name: string) => c.services.delete(project, name),
    (qc) => qc.invalidateQueries({ queryKey: serviceKeys.project(project) }),
  );
}

/** Starts a deployment (202); its steps arrive as deployment.updated events. */
export function useDeploy(project: string) {
  return useClientMutation(
    (c, { name, body }: { name: string; body: DeployRequest }) => c.services.deploy(project, name, body),
    upsertDeployment,
  );
}

export function useRollback(project: string) {
  return useClientMutation((c, name: string) => c.services.rollback(project, name), upsertDeployment);
}

/** A one-time link that opens the service's URL signed in (auth "token"); nothing to cache. */
export function useServiceSignIn(project: string, name: string): SignIn {
  const client = useClient();
  return () => client.services.signInLink(project, name);
}
