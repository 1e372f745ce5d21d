import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * Every documented operation's operationId, keyed by method and route: verb + resource in
 * camelCase, the words the client's methods use. Generated clients name their methods after
 * these, so they never change by accident: a change is an edit here, in the table of
 * docs/api.md ("Operation IDs") and a line in its changelog (operation-ids.test.ts checks the
 * first two agree). A documented route missing from this table stops the core at start-up.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /version': 'getVersion',
  'GET /healthz': 'getHealth',
  'GET /v1/system': 'getSystem',
  'GET /v1/regions': 'listRegions',
  'GET /v1/events': 'streamEvents',
  'GET /v1/openapi.json': 'getOpenApiDocument',

  'POST /v1/tokens': 'createToken',
  'GET /v1/tokens': 'listTokens',
  'DELETE /v1/tokens/:id': 'deleteToken',
  'POST /v1/secrets': 'createSecret',
  'GET /v1/secrets': 'listSecrets',
  'DELETE /v1/secrets/:name': 'deleteSecret',

  'GET /v1/bases': 'listBases',
  'POST /v1/bases': 'createBase',
  'POST /v1/bases/:name/import': 'importBase',
  'PUT /v1/bases/:name': 'updateBase',
  'DELETE /v1/bases/:name': 'deleteBase',
  'POST /v1/bases/:name/build': 'buildBase',
  'GET /v1/bases/:name/builds': 'listBaseBuilds',
  'GET /v1/bases/:name/builds/:id': 'getBaseBuild',
  'GET /v1/bases/:name/builds/:id/log': 'getBaseBuildLog',
  'DELETE /v1/bases/:name/builds/:id': 'cancelBaseBuild',
  'POST /v1/projects/:project/up': 'makeBoxFromFolder',

  'POST /v1/projects/:project/boxes': 'createBox',
  'GET /v1/projects/:project/boxes': 'listBoxes',
  'GET /v1/projects/:project/boxes/:name': 'getBox',
  'PUT /v1/projects/:project/boxes/:name': 'updateBox',
  'DELETE /v1/projects/:project/boxes/:name': 'deleteBox',
  'GET /v1/projects/:project/boxes/:name/logs': 'getBoxLogs',
  'POST /v1/projects/:project/boxes/:name/stop': 'stopBox',
  'POST /v1/projects/:project/boxes/:name/resume': 'resumeBox',
  'POST /v1/projects/:project/boxes/:name/pause': 'pauseBox',
  'GET /v1/projects/:project/boxes/:name/stats': 'getBoxStats',
  'GET /v1/projects/:project/boxes/:name/egress': 'getBoxEgress',

  'POST /v1/projects/:project/boxes/:name/exec': 'execCommand',
  'GET /v1/projects/:project/boxes/:name/exec': 'openExecSocket',
  'GET /v1/projects/:project/boxes/:name/console': 'openConsoleSocket',

  'GET /v1/projects/:project/boxes/:name/jobs': 'listJobs',
  'GET /v1/projects/:project/boxes/:name/jobs/:id': 'getJob',
  'GET /v1/projects/:project/boxes/:name/jobs/:id/output': 'readJobOutput',
  'POST /v1/projects/:project/boxes/:name/jobs/:id/kill': 'killJob',
  'DELETE /v1/projects/:project/boxes/:name/jobs/:id': 'deleteJob',

  'POST /v1/mcp': 'postMcpMessage',

  'GET /v1/projects/:project/boxes/:name/files': 'readFile',
  'PUT /v1/projects/:project/boxes/:name/files': 'writeFile',
  'DELETE /v1/projects/:project/boxes/:name/files': 'deleteFile',
  'GET /v1/projects/:project/boxes/:name/files/stat': 'statFile',
  'GET /v1/projects/:project/boxes/:name/files/list': 'listFiles',
  'POST /v1/projects/:project/boxes/:name/files/mkdir': 'makeDirectory',
  'GET /v1/projects/:project/boxes/:name/files/archive': 'readArchive',
  'GET /v1/projects/:project/boxes/:name/files/changes': 'listFileChanges',

  'POST /v1/projects/:project/boxes/:name/snapshots': 'createSnapshot',
  'GET /v1/projects/:project/boxes/:name/snapshots': 'listSnapshots',
  'POST /v1/projects/:project/boxes/:name/restore': 'restoreBox',
  'GET /v1/projects/:project/snapshots': 'listProjectSnapshots',
  'GET /v1/projects/:project/snapshots/:id': 'getSnapshot',
  'DELETE /v1/projects/:project/snapshots/:id': 'deleteSnapshot',

  'POST /v1/projects/:project/boxes/:name/publish': 'publishBox',
  'DELETE /v1/projects/:project/boxes/:name/publish': 'unpublishBox',
  'POST /v1/projects/:project/boxes/:name/sign-in-link': 'createSignInLink',

  'POST /v1/projects/:project/volumes': 'createVolume',
  'GET /v1/projects/:project/volumes': 'listVolumes',
  'GET /v1/projects/:project/volumes/:name': 'getVolume',
  'DELETE /v1/projects/:project/volumes/:name': 'deleteVolume',
  'POST /v1/projects/:project/volumes/:name/attach': 'attachVolume',
  'POST /v1/projects/:project/volumes/:name/detach': 'detachVolume',
  'POST /v1/projects/:project/volumes/:name/restore': 'restoreVolume',
  'POST /v1/projects/:project/volumes/:name/snapshots': 'createVolumeSnapshot',
  'GET /v1/projects/:project/volumes/:name/snapshots': 'listVolumeSnapshots',
  'DELETE /v1/projects/:project/volumes/:name/snapshots/:id': 'deleteVolumeSnapshot',
  'POST /v1/projects/:project/volumes/:name/backups': 'createVolumeBackup',
  'GET /v1/projects/:project/volumes/:name/backups': 'listVolumeBackups',
  'GET /v1/projects/:project/volumes/:name/backups/:id': 'getVolumeBackup',
  'DELETE /v1/projects/:project/volumes/:name/backups/:id': 'deleteVolumeBackup',
  'GET /v1/projects/:project/volumes/:name/backups/:id/download': 'downloadVolumeBackup',

  'POST /v1/projects/:project/services': 'createService',
  'GET /v1/projects/:project/services': 'listServices',
  'GET /v1/projects/:project/services/:name': 'getService',
  'PUT /v1/projects/:project/services/:name': 'updateService',
  'DELETE /v1/projects/:project/services/:name': 'deleteService',
  'POST /v1/projects/:project/services/:name/deployments': 'deployService',
  'GET /v1/projects/:project/services/:name/deployments': 'listDeployments',
  'GET /v1/projects/:project/services/:name/deployments/:id': 'getDeployment',
  'POST /v1/projects/:project/services/:name/rollback': 'rollbackService',
  'POST /v1/projects/:project/services/:name/sign-in-link': 'createServiceSignInLink',
};

/**
 * Gives every documented route its operationId from OPERATION_IDS. A documented route without
 * one is a bug found at start-up, not a method a generated client names after its path.
 * Must be installed before routes are added.
 */
export function installOperationIds(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as (RouteOptions['schema'] & { hide?: boolean }) | undefined;
    if (!schema || schema.hide) return;
    const methods = [route.method].flat().map((m) => m.toUpperCase());
    // Fastify adds a HEAD route for every GET; the document leaves them out.
    if (methods.every((m) => m === 'HEAD')) return;
    const key = `${methods.join(',')} ${route.url}`;
    const operationId = OPERATION_IDS[key];
    if (!operationId)
      throw new Error(`${key} has no operationId: add one to OPERATION_IDS (electron/core/http/operation-ids.ts)`);
    route.schema = { ...schema, operationId };
  });
}
