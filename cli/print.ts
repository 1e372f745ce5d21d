/** Writing a command's answer in the chosen format (-o table|json|yaml). */
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
  empty?: string,
): void {
  print(ctx, list, () => (list.items.length || empty === undefined ? table(list.items, columns) : `${empty}\n`));
}

/** Deletes each of `ids` in turn (stopping at the first refusal); a table format says so for each. */
export async function deleteEach(
  ctx: Context,
  ids: readonly string[],
  remove: (id: string) => Promise<unknown>,
  said: (id: string) => string,
): Promise<void> {
  for (const id of ids) {
    await remove(id);
    if (ctx.format === 'table') ctx.stdout.write(`${said(id)}\n`);
  }
}
