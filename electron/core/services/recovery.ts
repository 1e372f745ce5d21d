import { SERVICE_COLORS } from '../../../shared/schemas/services';
import type { BoxesPort } from '../boxes/port';
import { now } from '../ids';
import { ownedBy } from './deployer';
import type { ServiceManager } from './service';
import { boxName, type ServiceStore } from './store';

const CUT_SHORT =
  'the core stopped (a crash or a quit) before this deployment went live; the live color was kept; deploy again';

/**
 * At start, before the API answers: a deployment the last run left pending,
 * starting or healthy never switched the route (the switch is one
 * transaction), so it failed; a live one still draining is done; a live one
 * whose box is gone is no longer live. Exactly one color stays live, or none
 * if none ever was.
 */
export function recoverDeploymentRecords(
  store: ServiceStore,
  boxes: Pick<BoxesPort, 'lookup'>,
  manager: ServiceManager,
): void {
  for (const service of store.all()) {
    for (const dep of store.deployments(service.id)) {
      if (dep.status === 'pending' || dep.status === 'starting' || dep.status === 'healthy') {
        manager.announce(
          service,
          store.updateDeployment(dep.id, { status: 'failed', step: null, reason: CUT_SHORT }, now()),
        );
      } else if (dep.status === 'live' && dep.step !== null) {
        manager.announce(service, store.updateDeployment(dep.id, { step: null }, now()));
      }
    }
    const live = service.live_deployment ? store.deployment(service.live_deployment) : undefined;
    const box = live && boxes.lookup(service.project, boxName(service, live.color));
    if (live && !(box && ownedBy(service, box))) {
      const at = now();
      const failed = store.updateDeployment(
        live.id,
        { status: 'failed', step: null, reason: `its box ${boxName(service, live.color)} was removed; deploy again` },
        at,
      );
      manager.announce(store.update(service.id, { live_deployment: null }, at), failed, true);
    }
  }
}

/**
 * Once the engine is up (after the box reconciler): the boxes of colors that
 * are not live (a deployment cut short, an old color not yet removed) go.
 * In the service's queue, so never under a deployment's feet.
 */
export async function removeStrayColors(store: ServiceStore, manager: ServiceManager): Promise<void> {
  for (const { id } of store.all()) {
    await manager.queue.run(id, async () => {
      const service = store.getById(id);
      if (!service) return;
      const live = service.live_deployment ? store.deployment(service.live_deployment) : undefined;
      for (const color of SERVICE_COLORS) {
        if (color !== live?.color) await manager.deployer.removeBox(service, boxName(service, color));
      }
    });
  }
}
