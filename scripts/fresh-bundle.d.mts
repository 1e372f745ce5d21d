/** dist/<dir>/<name>.mjs when it exists and is newer than every source in its inputs.json, else null. */
export function freshBundle(dir: string, name: string): string | null;
/** Node arguments that start the headless core: the fresh bundle, or serve.ts through tsx. */
export function coreArgs(): string[];
