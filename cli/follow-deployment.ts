import type { Ora } from 'ora';
import { ApiError } from '../shared/errors';
import { FINAL_DEPLOYMENT_STATUSES, type Deployment } from '../shared/schemas/services';
import type { Context } from './context';
import { Deadline } from './deadline';
import type { EventStream } from './event-stream';
import { checkWaitFlags, type WaitFlags } from './options';
import { render } from './output';
import { canDraw, prepareDrawing, withSpinner } from './progress';

export interface FollowOptions {
  /** Give up after this many seconds. */
  timeoutS: number;
  /** Called with each new state of the deployment (status or step changed). */
  onChange(deployment: Deployment): void;
  /** How often to GET the deployment when the event stream is not available. */
  pollMs?: number;
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
  const deadline = new Deadline(options.timeoutS);
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
    stream = await deadline.openEvents(ctx);
    const started = await start();
    seen(started);
    const id = started.id;
    await refresh(id);
    if (isFinal(current!)) return current!;
    if (stream) {
      for (;;) {
        const next = await deadline.within(stream.events.next());
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
    while (deadline.left() > 0) {
      await deadline.sleep(options.pollMs ?? 500);
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

  /** `ora` (from prepareDrawing) draws the spinner; without it every step is a line. */
  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream,
    private readonly ora?: typeof import('ora').default,
  ) {}

  update(d: Deployment): void {
    const line = stepLine(d);
    if (line === this.last) return;
    this.last = line;
    if (!canDraw(this.stream) || !this.ora) {
      this.stream.write(`${this.label}: ${line}\n`);
      return;
    }
    const text = `${this.label}: ${line}`;
    if (this.spinner) this.spinner.text = text;
    else this.spinner = this.ora({ text, stream: this.stream, discardStdin: false, isEnabled: true }).start();
  }

  /** Leaves the last state on the terminal with a tick or a cross. */
  end(ok: boolean): void {
    if (!this.spinner) return;
    if (ok) this.spinner.succeed();
    else this.spinner.fail();
    this.spinner = null;
  }
}

/** What a started deployment printed: where it landed, or that it is under way. */
function startedLine(d: Deployment, service: string): string {
  const what = d.kind === 'rollback' ? 'rollback' : 'deployment';
  return `${what} ${d.id} of ${service} started (${d.status}; its color is settled when it starts)\n`;
}

/** Follows with --wait: the steps on stderr, the end on stdout. Exit status 1 when it failed. */
async function followToEnd(
  ctx: Context,
  service: string,
  label: string,
  timeoutS: number,
  start: () => Promise<Deployment>,
): Promise<number> {
  const reporter = new StepReporter(label, ctx.stderr, (await prepareDrawing(ctx.stderr))?.ora);
  let d: Deployment;
  try {
    d = await startAndFollow(ctx, service, start, { timeoutS, onChange: (x) => reporter.update(x) });
  } catch (err) {
    reporter.end(false);
    throw err;
  }
  const ok = d.status !== 'failed';
  reporter.end(ok);
  if (!ok) {
    ctx.stdout.write(render(ctx.format, d, () => ''));
    // The whole reason was on the step line above; this says where things stand and what to do.
    const first = (d.reason ?? 'the core gave no reason').split('\n')[0]!.slice(0, 200);
    ctx.stderr.write(
      `deployment ${d.id} of ${service} failed: ${first}\n` +
        `the live color (if any) still serves; the failed spec is now the service's: fix it (box service update ${service} …) and deploy again, or go back to the last live one (box rollback ${service})\n`,
    );
    return 1;
  }
  const s = await ctx.client.services.get(ctx.project, service);
  const note = d.status === 'live' ? '' : ` (it has since been ${d.status.replace('_', ' ')})`;
  ctx.stdout.write(render(ctx.format, d, () => `${service} is live on ${d.color} (${d.id})${note}: ${s.url}\n`));
  return 0;
}

/**
 * Starts a deployment (`what`: "deploying", "rolling back"); with --wait
 * follows its steps to the end and prints where it landed. The exit status is
 * 1 when it failed.
 */
export async function runDeployment(
  ctx: Context,
  service: string,
  flags: WaitFlags,
  what: string,
  start: () => Promise<Deployment>,
): Promise<number> {
  checkWaitFlags(flags);
  if (flags.wait) return followToEnd(ctx, service, `${what} ${service}`, flags.timeout ?? 300, start);
  const d = await withSpinner(`${what} ${service}`, start, ctx.stderr);
  ctx.stdout.write(render(ctx.format, d, () => startedLine(d, service)));
  if (ctx.format === 'table') ctx.stderr.write(`follow it: box service deployments ${service} (or add --wait)\n`);
  return 0;
}
