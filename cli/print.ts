/** Writing a command's answer in the chosen format (-o table|json|yaml). */
import { failureText } from './cli-words';
import type { Context } from './context';
import { render, table, type Column } from './output';

/** One answer: `text` for a table, the data itself for json and yaml. */
export function print(ctx: Context, data: unknown, text: () => string): void {
  ctx.stdout.write(render(ctx.format, data, text));
}

/** A list as a table of `columns`; `empty` instead of a bare header when it has no items. */
export function printList<T>(
  ctx: Context,
  list: { items: readonly T[] },
  columns: readonly Column<T>[],
  empty: string,
): void {
  print(ctx, list, () => (list.items.length ? table(list.items, columns) : `${empty}\n`));
}

/**
 * Deletes each of `ids` in turn; a table format says so for each. A failure does not stop the
 * rest: each is said on stderr with its id, and the status is 1 if any failed. A single id's
 * failure is thrown as it is (reported like any other command's).
 */
export async function deleteEach(
  ctx: Context,
  ids: readonly string[],
  remove: (id: string) => Promise<unknown>,
  said: (id: string) => string,
): Promise<number> {
  const failed: string[] = [];
  for (const id of ids) {
    try {
      await remove(id);
      if (ctx.format === 'table') ctx.stdout.write(`${said(id)}\n`);
    } catch (err) {
      if (ids.length === 1) throw err;
      ctx.stderr.write(`${id}: ${failureText(err).replace(/\n/g, '\n  ')}\n`);
      failed.push(id);
    }
  }
  if (failed.length === 0) return 0;
  ctx.stderr.write(`box: ${failed.length} of ${ids.length} not deleted: ${failed.join(', ')}\n`);
  return 1;
}
