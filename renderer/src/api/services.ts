import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { BoxdeskEvent } from '../../../shared/events';
import type {
  DeployRequest,
  Deployment,
  Service,
  ServiceCreate,
  ServiceUpdate,
} from '../../../shared/schemas/services';
import { useClient } from './client-context';

/** The keys of this file's queries (beside query-keys.ts so the event stream can find them). */
export const serviceKeys = {
  all: ['services'] as const,
  project: (project: string) => ['services', project] as const,
  deployments: (project: string, service: string) => ['deployments', project, service] as const,
};

/** A project's services; kept current by service.* events. */
export function useServices(project: string) {
  const client = useClient();
  return useQuery({
    queryKey: serviceKeys.project(project),
    queryFn: async () => (await client.services.list(project)).items,
    staleTime: Infinity,
  });
}

/** A service's deployments, newest first; each deployment.updated event patches its entry. */
export function useDeployments(project: string, service: string) {
  const client = useClient();
  return useQuery({
    queryKey: serviceKeys.deployments(project, service),
    queryFn: async () => (await client.services.deployments(project, service)).items,
    staleTime: Infinity,
  });
}

function upsertService(qc: QueryClient, service: Service): void {
  qc.setQueryData<Service[]>(serviceKeys.project(service.project), (old) => {
    if (!old) return old;
    const at = old.findIndex((s) => s.name === service.name);
    if (at === -1) return [...old, service].sort((a, b) => a.name.localeCompare(b.name));
    // An answer may arrive after a newer event: keep whichever changed last.
    if (old[at]!.updated_at > service.updated_at) return old;
    return old.map((s, i) => (i === at ? service : s));
  });
}

function upsertDeployment(qc: QueryClient, d: Deployment): void {
  qc.setQueryData<Deployment[]>(serviceKeys.deployments(d.project, d.service), (old) => {
    if (!old) return old;
    const at = old.findIndex((x) => x.id === d.id);
    if (at === -1) return [d, ...old].sort((a, b) => b.created_at.localeCompare(a.created_at));
    if (old[at]!.updated_at > d.updated_at) return old;
    return old.map((x, i) => (i === at ? d : x));
  });
}

/** What the event stream does with service and deployment events (called from events.ts). */
export function applyServiceEvents(qc: QueryClient, events: BoxdeskEvent[]): void {
  for (const e of events) {
    switch (e.type) {
      case 'service.created':
      case 'service.updated':
        upsertService(qc, e.data.service);
        break;
      case 'service.deleted':
        qc.setQueryData<Service[]>(serviceKeys.project(e.data.service.project), (old) =>
          old?.filter((s) => s.name !== e.data.service.name),
        );
        qc.removeQueries({ queryKey: serviceKeys.deployments(e.data.service.project, e.data.service.name) });
        break;
      case 'deployment.updated':
        upsertDeployment(qc, e.data.deployment);
        break;
    }
  }
}

export function useCreateService(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ServiceCreate) => client.services.create(project, body),
    onSuccess: (s) => upsertService(qc, s),
  });
}

export function useUpdateService(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, body }: { name: string; body: ServiceUpdate }) => client.services.update(project, name, body),
    onSuccess: (s) => upsertService(qc, s),
  });
}

export function useDeleteService(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => client.services.delete(project, name),
    onSuccess: () => qc.invalidateQueries({ queryKey: serviceKeys.project(project) }),
  });
}

/** Starts a deployment (202); its steps arrive as deployment.updated events. */
export function useDeploy(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, body }: { name: string; body: DeployRequest }) => client.services.deploy(project, name, body),
    onSuccess: (d) => upsertDeployment(qc, d),
  });
}

export function useRollback(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => client.services.rollback(project, name),
    onSuccess: (d) => upsertDeployment(qc, d),
  });
}
