import assert from 'node:assert/strict';

/** The whole answer of an ndjson route, followed to its end: it must be a 200 of application/x-ndjson; one value a line. */
export async function ndjsonLines<T>(res: Response): Promise<T[]> {
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /application\/x-ndjson/);
  return (await res.text())
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}
