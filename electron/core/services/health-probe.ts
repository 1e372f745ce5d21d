import http from 'node:http';
import type { BoxAgent } from '../publishing/box-connector';

/** One probe's answer: a success, or what went wrong in words. */
export type ProbeResult = { ok: true; answer: string } | { ok: false; answer: string };

/**
 * An HTTP GET of `path` on the box's port, through the same engine
 * connections the proxy uses (BoxAgent). A 2xx or 3xx answer is a success;
 * no answer within `timeoutMs` is a failure.
 */
export function probe(agent: BoxAgent, containerId: string, port: number, path: string, host: string, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = http.request({ host: containerId, port, path, method: 'GET', agent, headers: { host, connection: 'close', 'user-agent': 'boxdesk-health-check' } }, (res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      const answer = `GET ${path} answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`;
      done({ ok: status >= 200 && status < 400, answer });
    });
    const timer = setTimeout(() => done({ ok: false, answer: `GET ${path} had no answer within ${timeoutMs / 1000} s` }), timeoutMs);
    req.on('error', (err) => done({ ok: false, answer: `GET ${path} failed: ${err.message}` }));
    req.end();
  });
}
