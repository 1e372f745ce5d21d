import { withBases } from './calls/bases';
import { withBoxes } from './calls/boxes';
import { withBuilds } from './calls/builds';
import { ClientCore, type ClientOptions } from './calls/client-core';
import { withEvents } from './calls/events';
import { withExec } from './calls/exec';
import { withFiles } from './calls/files';
import { withJobs } from './calls/jobs';
import { withPublishing } from './calls/publishing';
import { ServicesClient } from './calls/services';
import { withSnapshots } from './calls/snapshots';
import { withSystem } from './calls/system';
import { withSecrets } from './calls/secrets';
import { withTokens } from './calls/tokens';
import { withUp } from './calls/up';
import { withVolumes } from './calls/volumes';

export type { BoxListFilter } from './calls/boxes';
export type { UpOptions } from './calls/up';
export {
  queryString,
  type ClientOptions,
  type FetchLike,
  type FetchResponse,
  type RequestBody,
} from './calls/client-core';
export type { ExecStreamLine } from './schemas/exec';

/**
 * A typed client for the /v1 API, shared by the renderer, the CLI and tests: the calls of each
 * area (shared/calls/, one file each) composed here, one line each.
 */
export class BoxdeskClient extends withSystem(
  withBoxes(
    withPublishing(
      withJobs(
        withExec(
          withFiles(
            withBases(withSnapshots(withVolumes(withTokens(withSecrets(withEvents(withBuilds(withUp(ClientCore)))))))),
          ),
        ),
      ),
    ),
  ),
) {
  /** Services and their deployments. */
  readonly services: ServicesClient;

  constructor(options: ClientOptions) {
    super(options);
    this.services = new ServicesClient(this);
  }
}
