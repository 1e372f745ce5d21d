import { parseJsonObject } from '../../../shared/json-object';
import { StorageError, checkItemId, type StorageErrorKind } from './storage-driver';

/**
 * The helper's command set (agent/internal/store), typed: each command becomes an argv of
 * validated flags for `boxdesk-agent store <op>`, never a shell string.
 */
export type StoreCommand =
  | { op: 'info' }
  | { op: 'create'; id: string; quotaBytes: number | null }
  | { op: 'snapshot'; source: string; id: string; readOnly: boolean; quotaBytes: number | null }
  | { op: 'exchange'; id: string; with: string }
  | { op: 'delete'; id: string }
  | { op: 'quota'; id: string; bytes: number }
  | { op: 'usage'; ids: string[] }
  | { op: 'list' }
  | { op: 'sync' }
  | { op: 'grow'; image: string; loop: number; sizeBytes: number }
  | { op: 'prepare'; image: string; template: string; sizeBytes: number; prefer: number }
  | { op: 'release'; image: string; loop: number }
  | { op: 'hold'; image: string | null; loop: number | null };

/** Where things are inside the helper container. */
export const IN_HELPER = {
  binary: '/boxdesk-agent',
  emptyFilesystem: '/empty-btrfs.img.gz',
  /** The data dir's store folder, bind-mounted. */
  storeDir: '/store',
  /** The loop image's top level, mounted in the helper's own mount namespace. */
  loopTop: '/mnt/top',
} as const;

function bytes(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new StorageError('invalid', `${n} is not a number of bytes`);
  return String(n);
}

function loop(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= 1 << 20) throw new StorageError('invalid', `${n} is not a loop number`);
  return String(n);
}

const quota = (q: number | null) => (q ? ['--quota', bytes(q)] : []);

/** The argv of one command; `top` is the filesystem's top level inside the helper. */
export function commandArgv(cmd: StoreCommand, top: string): string[] {
  const argv = (op: string, ...flags: string[]) => [IN_HELPER.binary, 'store', op, ...flags];
  switch (cmd.op) {
    case 'info':
    case 'list':
    case 'sync':
      return argv(cmd.op, '--top', top);
    case 'create':
      return argv('create', '--top', top, '--id', checkItemId(cmd.id), ...quota(cmd.quotaBytes));
    case 'snapshot':
      return argv(
        'snapshot',
        '--top',
        top,
        '--source',
        checkItemId(cmd.source),
        '--id',
        checkItemId(cmd.id),
        ...(cmd.readOnly ? ['--readonly'] : []),
        ...quota(cmd.quotaBytes),
      );
    case 'exchange':
      return argv('exchange', '--top', top, '--id', checkItemId(cmd.id), '--with', checkItemId(cmd.with));
    case 'delete':
      return argv('delete', '--top', top, '--id', checkItemId(cmd.id));
    case 'quota':
      return argv('quota', '--top', top, '--id', checkItemId(cmd.id), '--bytes', bytes(cmd.bytes));
    case 'usage':
      return argv('usage', '--top', top, ...cmd.ids.flatMap((id) => ['--ids', checkItemId(id)]));
    case 'grow':
      return argv('grow', '--top', top, '--image', cmd.image, '--loop', loop(cmd.loop), '--size', bytes(cmd.sizeBytes));
    case 'prepare':
      return argv(
        'prepare',
        '--image',
        cmd.image,
        '--template',
        cmd.template,
        '--size',
        bytes(cmd.sizeBytes),
        '--prefer',
        loop(cmd.prefer),
      );
    case 'release':
      return argv('release', '--image', cmd.image, '--loop', loop(cmd.loop));
    case 'hold':
      return cmd.image === null || cmd.loop === null
        ? argv('hold', '--top', top)
        : argv('hold', '--top', top, '--image', cmd.image, '--loop', loop(cmd.loop));
  }
}

const KINDS: Record<string, StorageErrorKind> = {
  invalid: 'invalid',
  not_found: 'not_found',
  exists: 'busy',
  busy: 'busy',
  no_space: 'no_space',
  denied: 'unavailable',
  unsupported: 'unavailable',
  not_ready: 'unavailable',
};

/** The helper's answer: its JSON object, or its error as a StorageError. */
export function parseAnswer(stdout: string, stderr: string, exitCode: number): Record<string, unknown> {
  const line = stdout.trim().split('\n').pop() ?? '';
  // null when the line is no JSON object: the helper did not run (reported below with what it printed).
  const answer = parseJsonObject(line);
  const error = answer?.error as { kind?: string; message?: string } | undefined;
  if (error) throw new StorageError(KINDS[error.kind ?? ''] ?? 'failed', error.message ?? 'the store helper failed');
  if (exitCode !== 0 || !answer)
    throw new StorageError(
      'failed',
      `the store helper exited with ${exitCode}: ${(stderr || stdout).trim().slice(-500) || 'no output'}`,
    );
  return answer;
}
