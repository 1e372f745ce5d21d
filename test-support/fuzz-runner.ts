import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import http from 'node:http';
import type { JsonSchema } from './openapi-arbitraries';
import type { FuzzRequest } from './openapi-fuzz';
import type { Operation } from './openapi-operations';

export interface FuzzResponse {
  status: number;
  contentType: string;
  body: Buffer;
  /** The answer was a stream still open after `streamMs`; the fuzzer cut it. */
  cut: boolean;
}

/** Content types of answers that may stream for as long as the client stays (logs follow, events, ndjson). */
const STREAMING = /^(text\/event-stream|application\/x-ndjson|text\/plain)/;

/** A body this large may still be on its way when the server has answered a refusal and closed. */
const LARGE_BODY = 64 * 1024;

/**
 * Sends a request exactly as generated (node:http: no normalisation of the path, any
 * Content-Type). A streaming answer is cut after `streamMs`; any other answer must be
 * complete within `answerMs`, or the request fails as a hang.
 *
 * A server may refuse a request (401, 413) before reading its body, answer and close; a client
 * still writing a large body then sees EPIPE or ECONNRESET before it reads the answer waiting in
 * its socket. Such a request is sent again (twice at most), as an HTTP client retries a refused
 * upload: the answer is what is judged, and a server that never answers still fails.
 */
export async function send(
  baseUrl: string,
  req: FuzzRequest,
  options: { streamMs?: number; answerMs?: number } = {},
): Promise<FuzzResponse> {
  const large = req.body !== undefined && Buffer.byteLength(req.body) >= LARGE_BODY;
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendOnce(baseUrl, req, options);
    } catch (err) {
      const cutOff = ['EPIPE', 'ECONNRESET'].includes((err as NodeJS.ErrnoException).code ?? '');
      if (!large || !cutOff || attempt === 3) throw err;
    }
  }
}

function sendOnce(
  baseUrl: string,
  req: FuzzRequest,
  { streamMs = 150, answerMs = 30_000 } = {},
): Promise<FuzzResponse> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(hang);
      fn();
    };
    const hang = setTimeout(() => {
      finish(() => reject(new Error(`no complete answer within ${answerMs} ms`)));
      request.destroy();
    }, answerMs);
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const request = http.request(
      { host: u.hostname, port: u.port, method: req.method, path: req.target, headers, agent: false },
      (res) => {
        const parts: Buffer[] = [];
        const contentType = String(res.headers['content-type'] ?? '');
        const answer = (cut: boolean) =>
          finish(() => resolve({ status: res.statusCode ?? 0, contentType, body: Buffer.concat(parts), cut }));
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => answer(false));
        res.on('error', () => answer(true));
        if (STREAMING.test(contentType)) {
          setTimeout(() => {
            answer(true);
            request.destroy();
          }, streamMs).unref();
        }
      },
    );
    request.on('error', (err) => finish(() => reject(err)));
    if (req.body !== undefined) request.write(req.body);
    request.end();
  });
}

const PROBLEM_SHAPE: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

/** Judges answers against the served document: documented status, problem shape, response schemas. */
export class ResponseChecker {
  private readonly ajv = addFormats(new Ajv({ strict: false, allErrors: false }));
  private readonly compiled = new Map<JsonSchema, ValidateFunction>();

  private validator(schema: JsonSchema): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) {
      v = this.ajv.compile(schema);
      this.compiled.set(schema, v);
    }
    return v;
  }

  private schemaErrors(schema: JsonSchema, value: unknown): string | null {
    const v = this.validator(schema);
    return v(value) ? null : this.ajv.errorsText(v.errors);
  }

  /** Rules that need the request: a body a route takes none of is refused; no answer names what its token may not see. */
  private requestRules(op: Operation, res: FuzzResponse, req: FuzzRequest): string[] {
    const out: string[] = [];
    if (!op.body && carriesBody(req) && res.status < 300)
      out.push(`answered ${res.status} to a body on a route that takes none (it must be refused: 415)`);
    const sent = `${req.target} ${req.body ?? ''}`;
    const text = res.body.toString('utf8');
    for (const name of req.hidden ?? [])
      if (text.includes(name) && !sent.includes(name))
        out.push(`the answer names "${name}", which this token (restricted to another project) may not see`);
    return out;
  }

  /** What is wrong with `res` as an answer of `op` (to `req`, when given); an empty list when nothing is. */
  check(op: Operation, res: FuzzResponse, req?: FuzzRequest): string[] {
    const out = req ? this.requestRules(op, res, req) : [];
    const status = String(res.status);
    if (res.status >= 500) out.push(`answered ${res.status}: no request may cause a 5xx`);
    const documented = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses.default;
    const mediaType = res.contentType.split(';')[0]!.trim().toLowerCase();
    if (res.status >= 400) {
      if (mediaType !== 'application/problem+json')
        out.push(`error ${res.status} is ${res.contentType || 'without a content type'}, not application/problem+json`);
      type ProblemBody = { status?: unknown; code?: unknown; detail?: unknown };
      let problem = null as ProblemBody | null;
      try {
        problem = JSON.parse(res.body.toString('utf8')) as ProblemBody;
      } catch {
        out.push(`error ${res.status} body is not JSON: ${res.body.toString('utf8').slice(0, 120)}`);
      }
      if (problem) {
        const shape = this.schemaErrors(PROBLEM_SHAPE, problem);
        if (shape) out.push(`error ${res.status} is not a problem document: ${shape}`);
        if (problem.status !== res.status)
          out.push(`problem status ${String(problem.status)} differs from HTTP ${res.status}`);
      }
      // A request whose path matched no route never reached the operation: its 404 is the router's.
      const unrouted =
        res.status === 404 && typeof problem?.detail === 'string' && problem.detail.startsWith('no route ');
      if (!documented && !unrouted)
        out.push(
          `status ${res.status} (${String(problem?.code)}) is not documented for ${op.id} (documents ${Object.keys(op.responses).join(', ')})`,
        );
      return out;
    }
    if (!documented) {
      out.push(
        `status ${res.status} is not documented for ${op.id} (documents ${Object.keys(op.responses).join(', ')})`,
      );
      return out;
    }
    if (res.status === 204) {
      if (res.body.length > 0) out.push(`204 with a body: ${res.body.toString('utf8').slice(0, 80)}`);
      return out;
    }
    const entry = Object.entries(documented).find(([ct]) => ct.toLowerCase() === mediaType);
    if (Object.keys(documented).length > 0 && !entry)
      out.push(`2xx content type ${res.contentType} is not one documented (${Object.keys(documented).join(', ')})`);
    if (!entry || res.cut) return out;
    // An ndjson answer is zero or more documents, one a line (a stream that ended before its first sample is empty).
    const documents = /ndjson$/.test(mediaType)
      ? res.body
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== '')
      : /json$/.test(mediaType)
        ? [res.body.toString('utf8')]
        : [];
    for (const text of documents) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        out.push(`2xx body is not JSON: ${text.slice(0, 120)}`);
        return out;
      }
      const errors = this.schemaErrors(entry[1], value);
      if (errors) out.push(`2xx body does not match the documented schema: ${errors}`);
    }
    return out;
  }
}

/** Whether a request carried a body (a Content-Length other than 0). */
function carriesBody(req: FuzzRequest): boolean {
  return req.body !== undefined && req.body !== '';
}

/** A request as text a person can replay, for failure messages. */
export function describeRequest(req: FuzzRequest): string {
  const body = req.body === undefined ? '' : ` body(${req.body.length}) ${req.body.slice(0, 160)}`;
  return `${req.method} ${req.target.slice(0, 300)} [${req.kind}] content-type=${req.headers['content-type'] ?? '-'}${body}`;
}
