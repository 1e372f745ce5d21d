import { EngineError } from '../container-engine';

/**
 * Answers of Podman 4.3's Docker-compatible API that differ from Docker's in form, put in Docker's
 * (docs/engines.md, "What differs on Podman 4.3"). Each takes what the engine said and is a no-op
 * for Docker's answers.
 */

/** Podman's wait on a container that never ran: -1 (Docker: its exit code, 0). */
export const PODMAN_NEVER_RAN = -1;

/** An image id as Docker gives it: Podman's commit answers the bare 64 hex digits, which its own create then refuses. */
export function asImageId(id: string): string {
  return /^[0-9a-f]{64}$/.test(id) ? `sha256:${id}` : id;
}

/** Podman's exec create on a container that does not run: "container state improper" (Docker: "is not running"). */
export function execRefused(containerId: string, message: string): EngineError | null {
  if (!/container state improper/i.test(message)) return null;
  return new EngineError('conflict', `container ${containerId} is not running: start it first`);
}

/**
 * Podman's archive extractor (Buildah's copier) fails with its whole request dumped, host paths
 * of its storage included: the copier's own reason alone, and an entry that would replace a
 * directory with a non-directory or the reverse ("file exists", "not a directory" on creating it)
 * as the `invalid` Docker's noOverwriteDirNonDir gives.
 */
export function copierFailure(message: string): EngineError | null {
  if (!/copier/.test(message)) return null;
  const reason = message.slice(message.lastIndexOf('copier: put: ')).replace(/^copier: put: /, '');
  const creating = /error creating (?:file at )?"([^"]+)".*(file exists|not a directory|is a directory)/.exec(reason);
  if (creating)
    return new EngineError('invalid', `cannot overwrite what is at ${creating[1]} with an entry of another kind`);
  return new EngineError('failed', reason.replace(/\/var\/lib\/containers\/storage\/\S+/g, '…'));
}
