import type { BoxAgent } from './box-connector';
import type { ProxyTraffic } from './proxy-traffic';
import type { Box } from '../../../shared/schemas/box';
import type { PublishRequest, SignInLink } from '../../../shared/schemas/publishing';
import type { ServiceRoutes } from './service';
import type { SignInTarget } from './sign-in-links';

export { ListenerError, type BoxAgent } from './box-connector';
export { previewHost, previewUrl } from './published-hosts';
export type { ProxyRoute, ServiceRoutes } from './service';

/** What services ask of publishing: the proxy's port, its traffic, its way into a box, and a route per service. */
export interface PublishingPort {
  /** The proxy's port once it listens (0 before). */
  readonly proxyPort: number;
  /** Requests in flight per target container (a deployment drains the old colour on it). */
  readonly traffic: Pick<ProxyTraffic, 'drain'>;
  /** A connector to boxes' ports as the proxy makes them (the caller destroys it). */
  newAgent(): BoxAgent;
  /** Services answer on hosts of the box scheme, ahead of a published box of the same name. */
  routeServices(services: ServiceRoutes): void;
  /** A link to a service's URL that signs a browser in once (a one-time code when `auth` is "token"). */
  signInLink(target: SignInTarget, auth: string, tokenId: string): SignInLink;
  /** Publishes a box's port (`box up` publishes its folder's forwardPorts). */
  publish(project: string, name: string, input: PublishRequest): Promise<Box>;
}
