import WebSocket from 'ws';

export interface Control {
  type: string;
  [key: string]: unknown;
}

/** A real WebSocket client of the exec/console protocol, recording what arrives. */
export class WsSession {
  readonly ws: WebSocket;
  readonly controls: Control[] = [];
  /** Output bytes by channel: 0 = tty output, 1 = stdout, 2 = stderr. */
  readonly output: Record<number, Buffer[]> = { 0: [], 1: [], 2: [] };
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: (() => void)[] = [];

  constructor(
    url: string,
    token: string | null,
    options: { tty: boolean; origin?: string; headers?: Record<string, string> },
  ) {
    this.ws = new WebSocket(url, token ? ['boxdesk.v1', `bearer.${token}`] : [], {
      origin: options.origin,
      headers: options.headers,
    });
    this.ws.binaryType = 'nodebuffer';
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () =>
          reject(Object.assign(new Error(`HTTP ${res.statusCode}: ${body}`), { status: res.statusCode, body })),
        );
      });
      this.ws.once('error', reject);
    });
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) =>
      this.ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    this.ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) {
        if (options.tty) this.output[0]!.push(data);
        else this.output[data[0]!]?.push(data.subarray(1));
      } else {
        this.controls.push(JSON.parse(data.toString()) as Control);
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.ws.on('close', () => {
      for (const w of this.waiters.splice(0)) w();
    });
  }

  text(channel = 0): string {
    return Buffer.concat(this.output[channel]!).toString('utf8');
  }

  async until<T>(probe: () => T | undefined | null | false, ms = 15_000, what = 'condition'): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = probe();
      if (v) return v;
      const left = deadline - Date.now();
      if (left <= 0 || this.ws.readyState === WebSocket.CLOSED) {
        const again = probe();
        if (again) return again;
        throw new Error(
          `timed out waiting for ${what}; output so far: ${JSON.stringify(this.text(0) + this.text(1) + this.text(2)).slice(-500)}; controls: ${JSON.stringify(this.controls)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  waitForText(pattern: RegExp, channel = 0, ms?: number): Promise<RegExpExecArray> {
    return this.until(() => pattern.exec(this.text(channel)), ms, `output matching ${pattern}`);
  }

  waitForControl(type: string, ms?: number): Promise<Control> {
    return this.until(() => this.controls.find((c) => c.type === type), ms, `a ${type} message`);
  }

  type(text: string): void {
    this.ws.send(Buffer.from(text));
  }

  stdin(text: string): void {
    this.ws.send(Buffer.concat([Buffer.of(0), Buffer.from(text)]));
  }

  control(message: Control): void {
    this.ws.send(JSON.stringify(message));
  }

  /** A deliberate close (1000): the session ends. */
  close(): void {
    this.ws.close(1000);
  }

  /** The connection drops without a close frame: the session waits for a reattach. */
  drop(): void {
    this.ws.terminate();
  }
}
