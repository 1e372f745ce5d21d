import type { AnyModule, CoreContext, EngineUpPhase, HttpContext, StartPhase } from './module';
import { ENGINE_UP_PHASES, START_PHASES } from './module';

/** One module, made. */
interface Running {
  module: AnyModule;
  instance: unknown;
  port: unknown;
}

/**
 * Refuses a module list the core cannot run: two modules of one name, a module listed before
 * one it needs, an event kind or id prefix claimed twice.
 */
export function checkModules(modules: readonly AnyModule[]): void {
  const seen = new Set<string>();
  const claimed = new Map<string, string>();
  const claim = (what: string, by: string) => {
    const owner = claimed.get(what);
    if (owner) throw new Error(`${what} is claimed by modules "${owner}" and "${by}"`);
    claimed.set(what, by);
  };
  for (const m of modules) {
    if (seen.has(m.name)) throw new Error(`two modules are named "${m.name}"`);
    for (const need of m.needs)
      if (!seen.has(need.name))
        throw new Error(`module "${m.name}" needs "${need.name}", which is not listed before it`);
    seen.add(m.name);
    for (const kind of Object.keys(m.events)) claim(`the event kind "${kind}"`, m.name);
    for (const prefix of m.idPrefixes) claim(`the id prefix "${prefix}_"`, m.name);
  }
}

/** The modules made in order, each from its context and the ports of those it needs. */
export class ModuleSet {
  private readonly running: Running[] = [];

  constructor(
    modules: readonly AnyModule[],
    private readonly ctx: CoreContext,
  ) {
    checkModules(modules);
    for (const module of modules) {
      const ports = Object.fromEntries(module.needs.map((need) => [need.name, this.find(need).port]));
      const instance: unknown = module.create(ctx, ports);
      this.running.push({ module, instance, port: module.port(instance) });
    }
  }

  private find(module: AnyModule): Running {
    const found = this.running.find((r) => r.module === module);
    if (!found) throw new Error(`module "${module.name}" is not running`);
    return found;
  }

  /** A module's port, for the core's own wiring (the HTTP guard asks auth). */
  portOf<M extends AnyModule>(module: M): ReturnType<M['port']> {
    return this.find(module).port as ReturnType<M['port']>;
  }

  registerRoutes(http: HttpContext): void {
    for (const { module, instance } of this.running) module.routes?.(http, instance);
  }

  async start(): Promise<void> {
    for (const { module, instance } of this.running) await module.start?.(instance, this.ctx);
  }

  /** The engine-up phases, in order; `settled` only after a reconcile that succeeded. */
  async engineUp(): Promise<void> {
    const failed = new Set<EngineUpPhase>();
    for (const phase of ENGINE_UP_PHASES) {
      if (phase === 'settled' && failed.has('reconcile')) continue;
      for (const { module, instance } of this.running) {
        const step = module.engineUp?.[phase];
        if (!step) continue;
        try {
          await step(instance, this.ctx);
        } catch (err) {
          failed.add(phase);
          this.ctx.log.error({ err, module: module.name, phase }, 'engine recovery step failed');
        }
      }
    }
  }

  /** Once at start when the engine is up: the start phases, in order. */
  async atStart(): Promise<void> {
    for (const phase of START_PHASES satisfies readonly StartPhase[])
      for (const { module, instance } of this.running) await module.atStart?.[phase]?.(instance, this.ctx);
  }

  /** In reverse order; one that fails does not keep the others alive. */
  async dispose(): Promise<void> {
    for (const { module, instance } of [...this.running].reverse()) {
      try {
        await module.dispose?.(instance, this.ctx);
      } catch (err) {
        this.ctx.log.warn({ err, module: module.name }, 'a module failed to close');
      }
    }
  }
}
