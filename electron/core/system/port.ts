import type { PoolInfo, ProxyEdgeInfo } from '../../../shared/schemas/system';

/** What later modules tell the system module, for GET /v1/system. */
export interface SystemPort {
  /** How to read the preview proxy's port (publishing, made after system, listens once the core starts). */
  reportProxyPort(read: () => number): void;
  /** How to read who serves the proxy's port: the edge or the Node proxy alone (publishing). */
  reportProxyEdge(read: () => ProxyEdgeInfo): void;
  /** How to read the warm pools (boxes, made after system). */
  reportPools(read: () => PoolInfo[]): void;
  /** How to count the boxes of each region (boxes, made after system), for GET /v1/regions. */
  reportRegionBoxes(read: () => Map<string, number>): void;
}
