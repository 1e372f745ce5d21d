import { after, before, describe } from 'node:test';
import type { ContainerEngine } from './container-engine';
import { execCases } from './contract/exec';
import { fileCases } from './contract/files';
import { newTag, specOf, type Contract } from './contract/harness';
import { imageCases } from './contract/images';
import { lifecycleCases } from './contract/lifecycle';
import { resourceCases } from './contract/resources';

/**
 * What every `ContainerEngine` must do, as the interface's comments say and
 * as Docker does it: run by the Docker driver's integration test against
 * the real engine and by the memory engine's unit test, so the two cannot
 * drift apart. Where Docker surprised us, the contract states Docker's
 * behaviour. Cases share one running and one stopped container where they
 * do not share state, which keeps the run against a real engine short.
 */
export function runEngineContract(name: string, make: () => { engine: ContainerEngine; image: string }): void {
  describe(`ContainerEngine contract: ${name}`, () => {
    let contract: Contract | null = null;
    const made: string[] = [];
    const c = (): Contract => {
      if (!contract) throw new Error('the contract has not been set up');
      return contract;
    };

    before(async () => {
      const { engine, image } = make();
      // The engine's name as the core learns it at start (Podman's differences are named by it).
      await engine.info();
      const tag = newTag();
      const labels = { 'contract.run': tag };
      const base = { image, labels, tag };
      const create = async (boxName: string, command: string[], extra = {}) => {
        const spec = specOf(base, boxName, command, extra);
        const id = await engine.createContainer({ ...spec, labels: { ...spec.labels, 'contract.name': boxName } });
        made.push(id);
        return id;
      };
      const shared = (role: string, command: string[]) =>
        create(role, command, {
          labels: { 'contract.role': role, 'contract.empty': '' },
          env: { FROM_CONTAINER: 'c', SHARED: 'c' },
        });
      const running = await shared('running', ['sleep', '600']);
      await engine.startContainer(running);
      const stopped = await shared('stopped', ['true']);
      contract = { engine, image, labels, tag, running, stopped, create };
    });

    after(async () => {
      if (!contract) return;
      const { engine, labels, tag } = contract;
      for (const id of made) await engine.removeContainer(id).catch(() => undefined);
      // Twice: an image another builds on goes only once that one has.
      for (let pass = 0; pass < 2; pass++)
        for (const image of await engine.listImages(labels)) await engine.removeImage(image.id).catch(() => undefined);
      for (const volume of [`${tag}-vol`, `${tag}-shared`, `${tag}-implicit`])
        await engine.removeVolume(volume).catch(() => undefined);
      await engine.removeNetwork(`${tag}-net`).catch(() => undefined);
    });

    lifecycleCases(c);
    execCases(c);
    fileCases(c);
    imageCases(c);
    resourceCases(c);
  });
}
