import http from 'node:http';
import { ListenerError, type BoxAgent } from '../publishing/port';

/** One probe's answer: a success, or what went wrong in words. */
export type ProbeResult = { ok: true; answer: string } | { ok: false; answer: string };

/**
 * An HTTP GET of `path` on the box's port, through the same engine
 * connections the proxy uses (BoxAgent). A 2xx or 3xx answer is a success;
 * no answer within `timeoutMs` is a failure.
 */
export function probe(
  agent: BoxAgent,
  containerId: string,
  port: number,
  path: string,
  host: string,
  timeoutMs: number,
): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = http.request(
      {
        host: containerId,
        port,
        path,
        method: 'GET',
        agent,
        headers: { host, connection: 'close', 'user-agent': 'boxdesk-health-check' },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        const answer = `GET ${path} answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`;
        done({ ok: status >= 200 && status < 400, answer });
      },
    );
    const timer = setTimeout(
      () => done({ ok: false, answer: `GET ${path} had no answer within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
    req.on('error', (err) => done({ ok: false, answer: `GET ${path} failed: ${explain(err, port)}` }));
    req.end();
  });
}

/** The connector's words, told for a service: its fix is the service's command or port, not publishing. */
function explain(err: Error, port: number): string {
  if (err instanceof ListenerError && err.probe.kind !== 'loopback-only') {
    return `nothing listens on port ${port} in the box (yet); the service's command must serve HTTP on 0.0.0.0:${port}, or set the port it uses (box service update NAME --port N)`;
  }
  return err.message;
}
