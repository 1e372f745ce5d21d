/** How many names a message lists before it says how many more there are. */
const SHOWN = 5;

/** Names for a message (what holds a thing, what uses it): the first five, then how many more (`a, b, c, d, e and 3 more`). */
export function nameList(names: string[]): string {
  const shown = names.slice(0, SHOWN).join(', ');
  return names.length > SHOWN ? `${shown} and ${names.length - SHOWN} more` : shown;
}
