import ora, { type Ora } from 'ora';
import { ApiError } from '../shared/errors';
import { FINAL_DEPLOYMENT_STATUSES, type Deployment } from '../shared/schemas/services';
import type { Context } from './context';
import { openEventStream, type EventStream } from './event-stream';
import { canDraw } from './progress';

export interface FollowOptions {
  /** Give up after this many seconds. */
  timeoutS: number;
  /** Called with each new state of the deployment (status or step changed). */
  onChange(deployment: Deployment): void;
  /** How often to GET the deployment when the event stream is not available. */
  pollMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, ms))));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Ended for good: a final status and no step left (a live deployment still drains and removes the old color). */
export const isFinal = (d: Deployment) => FINAL_DEPLOYMENT_STATUSES.includes(d.status) && d.step === null;

/**
 * Starts a deployment with `start` and follows it until it ends (live,
 * failed, …). The event stream is opened before `start` runs and the
 * deployment is read once after, so no deployment.updated slips between the
 * two; where the stream is unavailable or ends, it polls the deployment.
 * Returns the deployment as it ended; throws when the timeout passes.
 */
export async function startAndFollow(
  ctx: Context,
  service: string,
  start: () => Promise<Deployment>,
  options: FollowOptions,
): Promise<Deployment> {
  const deadline = Date.now() + options.timeoutS * 1000;
  const left = () => deadline - Date.now();
  let stream: EventStream | undefined;
  let current: Deployment | undefined;
  const seen = (d: Deployment) => {
    // An event queued before the catch-up read may be older than what that read returned.
    if (current && (d.updated_at < current.updated_at || (current.status === d.status && current.step === d.step)))
      return;
    current = d;
    options.onChange(d);
  };
  const refresh = async (id: string) => seen(await ctx.client.services.deployment(ctx.project, service, id));
  try {
    stream = await within(
      openEventStream(ctx.fetch, ctx.connection.url, ctx.connection.token).catch(() => undefined),
      left(),
    );
    const started = await start();
    seen(started);
    const id = started.id;
    await refresh(id);
    if (isFinal(current!)) return current!;
    if (stream) {
      for (;;) {
        const next = await within(stream.events.next(), left());
        if (next === undefined || next.done) break;
        const event = next.value;
        if (event.type === 'reset') await refresh(id);
        else if (
          event.type === 'service.deleted' &&
          event.project === ctx.project &&
          event.data.service.name === service
        ) {
          throw new ApiError(
            'not_found',
            `service ${service} was deleted while its deployment ${id} was ${current!.status}`,
          );
        } else if (
          event.type === 'deployment.updated' &&
          event.project === ctx.project &&
          event.data.service === service &&
          event.data.deployment.id === id
        ) {
          seen(event.data.deployment);
        } else continue;
        if (isFinal(current!)) return current!;
      }
    }
    while (left() > 0) {
      await sleep(Math.min(options.pollMs ?? 500, left()));
      await refresh(id);
      if (isFinal(current!)) return current!;
    }
    throw new Error(
      `deployment ${id} of ${service} is still ${current!.status} after ${options.timeoutS} s; raise --timeout or check "box service deployments ${service}"`,
    );
  } finally {
    stream?.close();
  }
}

/** One line for a deployment's state: "starting: health check 1/2 passed". */
export function stepLine(d: Deployment): string {
  if (d.status === 'failed') return `failed: ${d.reason ?? 'the core gave no reason'}`;
  return d.step ? `${d.status}: ${d.step}` : d.status;
}

/**
 * Shows a deployment's steps as they happen on `stream`: an ora spinner whose
 * text is the current step on a terminal, one line per step otherwise (so a
 * log or CI keeps the whole story).
 */
export class StepReporter {
  private spinner: Ora | null = null;
  private last = '';

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream,
  ) {}

  update(d: Deployment): void {
    const line = stepLine(d);
    if (line === this.last) return;
    this.last = line;
    if (!canDraw(this.stream)) {
      this.stream.write(`${this.label}: ${line}\n`);
      return;
    }
    const text = `${this.label}: ${line}`;
    if (this.spinner) this.spinner.text = text;
    else this.spinner = ora({ text, stream: this.stream, discardStdin: false, isEnabled: true }).start();
  }

  /** Leaves the last state on the terminal with a tick or a cross. */
  end(ok: boolean): void {
    if (!this.spinner) return;
    if (ok) this.spinner.succeed();
    else this.spinner.fail();
    this.spinner = null;
  }
}
