import { ApiError } from '../shared/errors';
import type { Box } from '../shared/schemas/box';
import type { Context } from './context';
import { Deadline } from './deadline';
import type { EventStream } from './event-stream';

export interface WaitOptions {
  /** Give up after this many seconds. */
  timeoutS: number;
  /** How often to GET the box when the event stream is not available. */
  pollMs?: number;
}

function settled(box: Box, target: Box['status']): boolean {
  if (box.status === 'error') {
    throw new ApiError('conflict', `box ${box.name} failed: ${box.status_reason ?? 'the core gave no reason'}`, {
      hint: `"box logs ${box.name}" shows its output; "box rm ${box.name}" deletes it`,
    });
  }
  return box.status === target;
}

/**
 * Waits until the box reaches `target`, reading the core's event stream (and
 * GETting the box once subscribed, so nothing slips between the two); where
 * the stream is unavailable or ends, it polls. Fails when the box lands in
 * `error` (with its status_reason), is deleted, or the timeout passes.
 */
export async function waitForStatus(ctx: Context, box: Box, target: Box['status'], options: WaitOptions): Promise<Box> {
  if (settled(box, target)) return box;
  const deadline = new Deadline(options.timeoutS);
  const { name } = box;
  let stream: EventStream | undefined;
  try {
    stream = await deadline.openEvents(ctx);
    let current = await ctx.client.getBox(ctx.project, name);
    if (settled(current, target)) return current;
    if (stream) {
      for (;;) {
        const next = await deadline.within(stream.events.next());
        if (next === undefined || next.done) break;
        const event = next.value;
        if (event.type === 'reset') current = await ctx.client.getBox(ctx.project, name);
        else if (event.type.startsWith('box.') && event.project === ctx.project) {
          const eventBox = (event.data as { box: Box }).box;
          if (eventBox.name !== name) continue;
          if (event.type === 'box.deleted')
            throw new ApiError('not_found', `box ${name} was deleted while waiting for it to be ${target}`);
          current = eventBox;
        } else continue;
        if (settled(current, target)) return current;
      }
    }
    // No stream, or it ended: poll until the deadline.
    while (deadline.left() > 0) {
      await deadline.sleep(options.pollMs ?? 1000);
      current = await ctx.client.getBox(ctx.project, name);
      if (settled(current, target)) return current;
    }
    throw new Error(
      `box ${name} is still ${current.status} after ${options.timeoutS} s (waiting for ${target}); raise --timeout or check "box get ${name}"`,
    );
  } finally {
    stream?.close();
  }
}
