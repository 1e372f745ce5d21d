import { ApiError } from '../../../shared/errors';

/**
 * What an archive of each kind may hold. Every tar the core reads from outside or hands out goes
 * through one of these (docs/security.md, "Archives"):
 *
 * - `rootfs` (a base import): a root filesystem legitimately has setuid binaries and absolute
 *   symlinks (resolved inside the box's own root); device nodes and fifos never belong in one (the
 *   engine makes /dev).
 * - `backup` (a volume backup, checked when written and again before a restore or clone): the
 *   volume's own data. A box can plant a setuid file or a device node in a volume, and a backup
 *   leaves the core as a download: those are refused, so a backup never carries them.
 * - `build-context` (a base build's Dockerfile and files, handed to the engine's builder): files,
 *   directories and links (a COPY keeps them); set-id bits are cleared, anything else left out.
 * - the project folder of `box up` (its workspace files, and the build context its devcontainer.json
 *   names): read as a build context is.
 * - `files-archive` (`GET …/files/archive`, unpacked on the client's machine): regular files and
 *   directories only; anything else is left out and mode bits above 0777 are cleared.
 *
 * Names (all kinds): relative, plain segments (`./` prefixes are dropped); an absolute name, a
 * `..` segment, or an entry below a symlink of the same archive is refused. Hard links name an
 * earlier regular file of the archive. Sparse files and entry types the policy does not name are
 * refused.
 */
export interface ArchivePolicy {
  readonly kind: 'rootfs' | 'backup' | 'files-archive' | 'build-context';
  /** The archive, as a refusal names it. */
  readonly noun: string;
  /** What the refusal tells the user to do. */
  readonly remedy: string;
  readonly symlinks: boolean;
  readonly hardLinks: boolean;
  /** Setuid and setgid bits on files (a setgid directory is only a group default and always allowed). */
  readonly setuid: 'keep' | 'refuse' | 'clear';
  /** An entry this policy does not carry: refuse the whole archive, or leave the entry out. */
  readonly otherwise: 'refuse' | 'omit';
}

export const ARCHIVE_POLICIES = {
  rootfs: {
    kind: 'rootfs',
    noun: 'the root filesystem tar',
    remedy: 'remove it from the archive and import again',
    symlinks: true,
    hardLinks: true,
    setuid: 'keep',
    otherwise: 'refuse',
  },
  backup: {
    kind: 'backup',
    noun: 'the backup',
    remedy: 'remove it from the volume and take another backup',
    symlinks: true,
    hardLinks: true,
    setuid: 'refuse',
    otherwise: 'refuse',
  },
  buildContext: {
    kind: 'build-context',
    noun: 'the build context',
    remedy: 'remove it from the context folder and build again',
    symlinks: true,
    hardLinks: true,
    setuid: 'clear',
    otherwise: 'omit',
  },
  projectFolder: {
    kind: 'build-context',
    noun: 'the project folder',
    remedy: 'remove it from the folder (or list it in .boxdeskignore) and run box up again',
    symlinks: true,
    hardLinks: true,
    setuid: 'clear',
    otherwise: 'omit',
  },
  filesArchive: {
    kind: 'files-archive',
    noun: 'the files archive',
    remedy: '',
    symlinks: false,
    hardLinks: false,
    setuid: 'clear',
    otherwise: 'omit',
  },
} as const satisfies Record<string, ArchivePolicy>;

/** What the checker needs of a tar header (tar-stream's names for the types; null: a type it does not know). */
export interface EntryHeader {
  name: string;
  type: string | null;
  linkname?: string | null;
  mode?: number;
  /** Set when the entry is a sparse file (its full length). */
  sparseLength?: number | null;
  devmajor?: number;
  devminor?: number;
}

/** An entry to write: its normalised name ('' is the archive's root directory) and link target. */
export type Verdict = { keep: true; name: string; linkname: string | null; mode: number } | { keep: false };

const SETID = 0o6000;

/** `./a/b/` → `a/b`; '' for the root itself; null for an absolute name or one with `..`, empty or NUL segments. */
export function normaliseEntryName(raw: string): string | null {
  if (raw.startsWith('/') || raw.includes('\0')) return null;
  let name = raw.replace(/\/+$/, '');
  while (name.startsWith('./')) name = name.slice(2).replace(/^\/+/, '');
  if (name === '.' || name === '') return '';
  const segments = name.split('/');
  return segments.every((s) => s !== '' && s !== '.' && s !== '..') ? name : null;
}

/** Whether a relative symlink target, read from the link's own directory, stays inside the tree. */
function staysInside(entry: string, target: string): boolean {
  const depth = entry.split('/').length - 1;
  let level = depth;
  for (const s of target.split('/')) {
    if (s === '..') level--;
    else if (s !== '' && s !== '.') level++;
    if (level < 0) return false;
  }
  return true;
}

function describeType(header: EntryHeader): string {
  switch (header.type) {
    case 'character-device':
      return `a character device node (c ${header.devmajor ?? 0} ${header.devminor ?? 0})`;
    case 'block-device':
      return `a block device node (b ${header.devmajor ?? 0} ${header.devminor ?? 0})`;
    case 'fifo':
      return 'a fifo';
    case 'symlink':
      return 'a symlink';
    case 'link':
      return 'a hard link';
    default:
      return `an entry of a type this archive may not hold (${header.type ?? 'not a file, directory or link'})`;
  }
}

/**
 * The rules of one policy applied to one archive, entry by entry, in order (hard links and
 * symlinks depend on what came before). `check` answers what to write, or throws a 400 naming the
 * entry and the rule.
 */
export class ArchiveChecker {
  /** Regular files so far, with the mode kept: a hard link's own header mode is ignored (the engine would chmod the shared inode to it). */
  private readonly files = new Map<string, number>();
  private readonly symlinks = new Set<string>();
  entries = 0;

  constructor(readonly policy: ArchivePolicy) {}

  private refuse(name: string, what: string, remedy = this.policy.remedy): never {
    throw new ApiError('invalid_body', `${this.policy.noun} holds "${name}", ${what}; ${remedy}`);
  }

  private omitOrRefuse(name: string, what: string, remedy?: string): Verdict {
    if (this.policy.otherwise === 'omit') return { keep: false };
    return this.refuse(name, what, remedy);
  }

  check(header: EntryHeader): Verdict {
    const name = normaliseEntryName(header.name);
    if (name === null) return this.omitOrRefuse(header.name, 'a name that is absolute or climbs out with ".."');
    const under = this.symlinkAbove(name);
    if (under !== null) return this.omitOrRefuse(header.name, `which lies below the symlink "${under}" of the archive`);
    this.entries++;
    const mode = header.mode ?? 0;
    if (header.sparseLength != null) {
      return this.omitOrRefuse(
        header.name,
        `a sparse file (${header.sparseLength} bytes long), which no archive may hold`,
        'make the archive again without --sparse (-S)',
      );
    }
    switch (header.type) {
      case 'directory':
        this.symlinks.delete(name);
        return { keep: true, name, linkname: null, mode: this.keptMode(mode) };
      case 'file':
      case 'contiguous-file':
        return this.file(header, name, mode);
      case 'symlink':
        return this.symlink(header, name, mode);
      case 'link':
        return this.hardLink(header, name);
      default:
        return this.omitOrRefuse(header.name, describeType(header));
    }
  }

  /** A files archive keeps only permission bits; the others keep sticky and, where allowed, set-id bits. */
  private keptMode(mode: number): number {
    return mode & (this.policy.setuid === 'clear' ? 0o777 : 0o7777);
  }

  private symlinkAbove(name: string): string | null {
    if (this.symlinks.size === 0) return null;
    const parts = name.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (this.symlinks.has(prefix)) return prefix;
    }
    return null;
  }

  private file(header: EntryHeader, name: string, mode: number): Verdict {
    if (mode & SETID && this.policy.setuid === 'refuse')
      return this.refuse(header.name, `a setuid or setgid file (mode ${(mode & 0o7777).toString(8)})`);
    const kept = this.keptMode(mode);
    this.files.set(name, kept);
    this.symlinks.delete(name);
    return { keep: true, name, linkname: null, mode: kept };
  }

  private symlink(header: EntryHeader, name: string, mode: number): Verdict {
    if (!this.policy.symlinks) {
      // Left out, it still makes what comes below it suspect.
      this.symlinks.add(name);
      return this.omitOrRefuse(header.name, 'a symlink');
    }
    const target = header.linkname ?? '';
    if (target === '' || target.includes('\0')) return this.refuse(header.name, 'a symlink without a target');
    if (name === '') return this.refuse(header.name, 'a symlink in place of the root directory');
    // An absolute target is text resolved later inside the box's own root; a relative one must not climb out.
    if (!target.startsWith('/') && !staysInside(name, target))
      return this.refuse(header.name, `a symlink to "${target}", which leaves the archive's tree`);
    this.files.delete(name);
    this.symlinks.add(name);
    return { keep: true, name, linkname: target, mode: mode & 0o777 };
  }

  private hardLink(header: EntryHeader, name: string): Verdict {
    if (!this.policy.hardLinks) return this.omitOrRefuse(header.name, 'a hard link');
    const target = normaliseEntryName(header.linkname ?? '');
    const targetMode = target ? this.files.get(target) : undefined;
    if (targetMode === undefined)
      return this.refuse(
        header.name,
        `a hard link to "${header.linkname ?? ''}", which is not a regular file earlier in the archive`,
      );
    this.files.set(name, targetMode);
    this.symlinks.delete(name);
    return { keep: true, name, linkname: target!, mode: targetMode };
  }
}
