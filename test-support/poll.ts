/** Calls `probe` every `everyMs` until it gives a value, which it answers; past `ms`, it throws naming `what`. */
export async function poll<T>(
  probe: () => Promise<T | null | undefined | false>,
  { ms, what, everyMs }: { ms: number; what: string; everyMs: number },
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
