/** Bundles a script a test runs as a process of its own, once per test process; answers the bundle's path. */
export function bundleScript(file: string): Promise<string>;
/** Bundles test files; answers the bundle of each, in the same order. */
export function bundleTests(files: string[]): Promise<string[]>;
/** The source place of a place in a bundle (1-based line and column), or null. */
export function sourceLocation(
  file: string,
  line: number,
  column: number,
): { file: string; line: number; column: number } | null;
