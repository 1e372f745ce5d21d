import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';

type Validator = ((data: unknown) => unknown) & { errors?: unknown };
type Serializer = (data: unknown) => string;
type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

/**
 * Route schemas compiled when a request first needs them, not when the core starts. The core
 * has about seventy routes; ajv and fast-json-stringify compiling all their validators and
 * serializers took about a second of CPU at every start (a third of it), while a session uses a
 * handful of routes. `compileAll` does the rest at once, so a test still finds a schema that
 * cannot compile without a request to its route.
 */
export class LazySchemas {
  private readonly pending = new Set<() => unknown>();

  /** A validator that compiles on its first call and carries the compiled one's `errors`. */
  validator(compile: () => Validator): Validator {
    let compiled: Validator | undefined;
    const ensure = () => (compiled ??= compile());
    const validate: Validator = (data) => {
      const result = ensure()(data);
      validate.errors = compiled!.errors;
      return result;
    };
    this.track(ensure);
    return validate;
  }

  /** For Fastify's `schemaController.compilersFactory`: each route's serializer, compiled on its first answer. */
  readonly buildSerializer: BuildSerializer = (externalSchemas, options) => {
    const build = SerializerSelector()(externalSchemas, options);
    return (routeSchema) => {
      let compiled: Serializer | undefined;
      const ensure = () => (compiled ??= build(routeSchema) as Serializer);
      this.track(ensure);
      return (data: unknown) => ensure()(data);
    };
  };

  /** Compiles every schema no request has needed yet (a schema that cannot compile throws here). */
  compileAll(): void {
    for (const compile of this.pending) compile();
  }

  private track(ensure: () => unknown): void {
    this.pending.add(ensure);
  }
}

const byApp = new WeakMap<FastifyInstance, LazySchemas>();

export function rememberSchemas(app: FastifyInstance, schemas: LazySchemas): void {
  byApp.set(app, schemas);
}

/** Compiles every route schema of `app` that no request has needed yet. */
export function compileAllSchemas(app: FastifyInstance): void {
  byApp.get(app)?.compileAll();
}
