import { formatRelative, formatTime } from './format';

/** An instant: the date and time, or (`relative`) how long ago, with the other in its tooltip. */
export function Time({ at, relative = false }: { at: string; relative?: boolean }) {
  const absolute = formatTime(at);
  const ago = formatRelative(at);
  return (
    <time dateTime={at} title={relative ? absolute : ago} style={{ whiteSpace: 'nowrap' }}>
      {relative ? ago : absolute}
    </time>
  );
}
