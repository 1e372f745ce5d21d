import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, Timestamp } from './common';

export const BoxPath = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'An absolute path inside the box, e.g. /etc/hosts. No "." or ".." segments, NUL bytes or backslashes.',
});

export const FileType = Type.Union([
  Type.Literal('file'),
  Type.Literal('dir'),
  Type.Literal('symlink'),
  Type.Literal('other'),
]);
export type FileType = Static<typeof FileType>;

export const FileStat = Type.Object({
  path: Type.String({ description: 'The normalised absolute path' }),
  type: FileType,
  size: Type.Integer({
    minimum: 0,
    description: 'Bytes for a file; the length of the target for a symlink; 0 for a directory',
  }),
  mode: Type.String({
    pattern: '^[0-7]{4}$',
    description: 'Permission bits as an octal string, e.g. "0644" (setuid/setgid/sticky in the first digit)',
  }),
  mtime: Timestamp,
  link_target: Type.Optional(Type.String({ description: 'For a symlink: where it points, as stored' })),
});
export type FileStat = Static<typeof FileStat>;

export const FileList = Type.Object({ items: Type.Array(FileStat) });
export type FileList = Static<typeof FileList>;

export const FileChange = Type.Object({
  path: Type.String(),
  kind: Type.Union([Type.Literal('added'), Type.Literal('changed'), Type.Literal('deleted')]),
});
export type FileChange = Static<typeof FileChange>;

export const FileChanges = Type.Object({ items: Type.Array(FileChange) });
export type FileChanges = Static<typeof FileChanges>;

export const FilePathQuery = ClosedObject({ path: BoxPath });
export type FilePathQuery = Static<typeof FilePathQuery>;

export const FileWriteQuery = ClosedObject({
  path: BoxPath,
  mode: Type.Optional(
    Type.String({
      pattern: '^0?[0-7]{3,4}$',
      description: 'Octal permission bits of the written file (default 0644)',
    }),
  ),
});
export type FileWriteQuery = Static<typeof FileWriteQuery>;

export const FileDeleteQuery = ClosedObject({
  path: BoxPath,
  recursive: Type.Optional(Type.Boolean({ description: 'Required to delete a non-empty directory' })),
});
export type FileDeleteQuery = Static<typeof FileDeleteQuery>;

export const FileMkdirQuery = ClosedObject({
  path: BoxPath,
  parents: Type.Optional(
    Type.Boolean({ description: 'Create missing parents; an existing directory is then not an error' }),
  ),
});
export type FileMkdirQuery = Static<typeof FileMkdirQuery>;
