import type { SignInLink } from '../schemas/publishing';
import type {
  DeployRequest,
  Deployment,
  DeploymentList,
  Service,
  ServiceCreate,
  ServiceList,
  ServiceUpdate,
} from '../schemas/services';

/** The slice of BoxdeskClient the services calls use (kept apart so client.ts stays one screenful per area). */
interface Requester {
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
}

const enc = encodeURIComponent;

/** Services and their blue/green deployments: `client.services`. */
export class ServicesClient {
  constructor(private readonly client: Requester) {}

  private path(project: string, name?: string, route = ''): string {
    return `/v1/projects/${enc(project)}/services${name === undefined ? '' : `/${enc(name)}`}${route}`;
  }

  /** Creates the service and starts its first deployment (follow it with deployment.updated events). */
  create(project: string, body: ServiceCreate): Promise<Service> {
    return this.client.request('POST', this.path(project), body);
  }

  list(project: string): Promise<ServiceList> {
    return this.client.request('GET', this.path(project));
  }

  get(project: string, name: string): Promise<Service> {
    return this.client.request('GET', this.path(project, name));
  }

  /** Changes the spec: auth at once, the rest at the next deploy. */
  update(project: string, name: string, body: ServiceUpdate): Promise<Service> {
    return this.client.request('PUT', this.path(project, name), body);
  }

  /** Removes the service, its boxes and its route. */
  delete(project: string, name: string): Promise<void> {
    return this.client.request('DELETE', this.path(project, name));
  }

  /** Starts a deployment (202, pending); it ends live or failed. */
  deploy(project: string, name: string, body: DeployRequest = {}): Promise<Deployment> {
    return this.client.request('POST', this.path(project, name, '/deployments'), body);
  }

  deployments(project: string, name: string): Promise<DeploymentList> {
    return this.client.request('GET', this.path(project, name, '/deployments'));
  }

  deployment(project: string, name: string, id: string): Promise<Deployment> {
    return this.client.request('GET', this.path(project, name, `/deployments/${enc(id)}`));
  }

  /** Redeploys the previous live deployment's spec, health-gated like any deploy (202). */
  rollback(project: string, name: string): Promise<Deployment> {
    return this.client.request('POST', this.path(project, name, '/rollback'));
  }

  /** A link that opens the service's URL in a browser and signs it in once (a one-time code, never a token). */
  signInLink(project: string, name: string): Promise<SignInLink> {
    return this.client.request('POST', this.path(project, name, '/sign-in-link'));
  }
}
