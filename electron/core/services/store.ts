import type { DataMount } from '../../../shared/schemas/box';
import type {
  Deployment,
  DeploymentStatus,
  HealthCheck,
  Service,
  ServiceColor,
} from '../../../shared/schemas/services';
import type { Db } from '../db/database';
import { ProjectTable, Table } from '../db/table';
import { parseLifecycle } from '../boxes/port';

export interface ServiceRow {
  id: string;
  project: string;
  name: string;
  base: string;
  /** JSON array, or null: the base's own main process. */
  command: string | null;
  port: number;
  environment: string;
  data_mounts: string;
  health_check: string;
  auth: 'public' | 'token';
  /** JSON of its live box's lifecycle clocks (null: none). */
  lifecycle: string | null;
  /** The live deployment's id: the one the proxy routes to. */
  live_deployment: string | null;
  created_at: string;
  updated_at: string;
}

/** A deployment records the whole spec it ran, so a rollback can run it again. */
export interface DeploymentRow {
  id: string;
  service_id: string;
  kind: 'deploy' | 'rollback';
  status: DeploymentStatus;
  color: ServiceColor;
  /** The box it created (null until then): what the service owns and removes. */
  box_id: string | null;
  base: string;
  command: string | null;
  environment: string;
  port: number;
  data_mounts: string;
  health_check: string;
  step: string | null;
  reason: string | null;
  created_at: string;
  updated_at: string;
  live_at: string | null;
}

/** The parts of a deployment's spec that come from its service. */
export type DeploymentSpec = Pick<
  DeploymentRow,
  'base' | 'command' | 'environment' | 'port' | 'data_mounts' | 'health_check'
>;

export function boxName(service: Pick<ServiceRow, 'name'>, color: ServiceColor): string {
  return `${service.name}-${color}`;
}

export function toDeployment(service: ServiceRow, row: DeploymentRow): Deployment {
  return {
    id: row.id,
    service: service.name,
    project: service.project,
    kind: row.kind,
    status: row.status,
    color: row.color,
    box: boxName(service, row.color),
    base: row.base,
    command: row.command ? (JSON.parse(row.command) as string[]) : null,
    environment: JSON.parse(row.environment) as Record<string, string>,
    step: row.step,
    reason: row.reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
    live_at: row.live_at,
  };
}

export function toService(row: ServiceRow, live: DeploymentRow | undefined, url: string): Service {
  return {
    id: row.id,
    name: row.name,
    project: row.project,
    base: row.base,
    command: row.command ? (JSON.parse(row.command) as string[]) : null,
    port: row.port,
    environment: JSON.parse(row.environment) as Record<string, string>,
    data_mounts: JSON.parse(row.data_mounts) as DataMount[],
    health_check: JSON.parse(row.health_check) as HealthCheck,
    url,
    url_settings: { auth: row.auth },
    lifecycle: parseLifecycle(row.lifecycle),
    active_deployment: live ? toDeployment(row, live) : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

type ServicePatch = Partial<
  Pick<
    ServiceRow,
    | 'base'
    | 'command'
    | 'port'
    | 'environment'
    | 'data_mounts'
    | 'health_check'
    | 'auth'
    | 'live_deployment'
    | 'lifecycle'
  >
>;
type DeploymentPatch = Partial<Pick<DeploymentRow, 'status' | 'box_id' | 'step' | 'reason' | 'live_at'>>;

/** The SQL of services and their deployments (migration 8). */
export class ServiceStore extends ProjectTable<ServiceRow, ServicePatch> {
  private readonly deploymentRows: Table<DeploymentRow, DeploymentPatch>;

  constructor(db: Db) {
    super(db, 'services');
    this.deploymentRows = new Table(db, 'deployments');
  }

  /** false when the project already has a service of that name. */
  insert(service: ServiceRow, first: DeploymentRow): boolean {
    return this.db.transaction(() => {
      if (!this.insertUnlessTaken(service, 'project, name')) return false;
      this.insertDeployment(first);
      return true;
    })();
  }

  insertDeployment(row: DeploymentRow): void {
    this.deploymentRows.insertRow(row);
  }

  list(project: string): ServiceRow[] {
    return this.select('WHERE project = ? ORDER BY created_at, id', project);
  }

  override delete(id: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM deployments WHERE service_id = ?').run(id);
      super.delete(id);
    })();
  }

  deployment(id: string): DeploymentRow | undefined {
    return this.deploymentRows.getById(id);
  }

  /** Newest first. */
  deployments(serviceId: string): DeploymentRow[] {
    return this.deploymentRows.select('WHERE service_id = ? ORDER BY created_at DESC, rowid DESC', serviceId);
  }

  updateDeployment(id: string, patch: DeploymentPatch, at: string): DeploymentRow {
    return this.deploymentRows.update(id, patch, at);
  }

  /** A deployment's color is settled when it starts (the one not live then). */
  setColor(id: string, color: ServiceColor): void {
    this.db.prepare('UPDATE deployments SET color = ? WHERE id = ?').run(color, id);
  }

  /**
   * The route switch, in one transaction: `next` goes live, the one it
   * replaces (if any) becomes `replaced`, and the service points at `next`.
   */
  switchLive(
    service: ServiceRow,
    next: DeploymentRow,
    replaced: 'superseded' | 'rolled_back',
    at: string,
  ): { service: ServiceRow; previous: DeploymentRow | undefined } {
    return this.db.transaction(() => {
      const previous = service.live_deployment
        ? this.updateDeployment(service.live_deployment, { status: replaced, step: null }, at)
        : undefined;
      this.updateDeployment(next.id, { status: 'live', live_at: at }, at);
      return { service: this.update(service.id, { live_deployment: next.id }, at), previous };
    })();
  }

  /** The deployment live before the current one (the one a rollback runs again), if any. */
  previousLive(service: ServiceRow): DeploymentRow | undefined {
    return this.deploymentRows.selectOne(
      'WHERE service_id = ? AND live_at IS NOT NULL AND id IS NOT ? ORDER BY live_at DESC, rowid DESC LIMIT 1',
      service.id,
      service.live_deployment,
    );
  }
}
