import type Docker from 'dockerode';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import { call } from './errors';
import { isPodman } from './flavor';
import { StreamDemuxer } from '../exec-streams';

/** How many files a container's log rotates through; the oldest goes when the newest fills. */
export const LOG_FILES = 4;

/**
 * The engine's log configuration for every container the driver creates: json-file (Docker and
 * Podman both honour it) rotated through LOG_FILES files that together hold at most `limitBytes`,
 * so a chatty box can never fill the disk. Several files rather than one: a rotation drops only the
 * oldest quarter, and `tail`/`follow` keep working across it.
 */
export function logConfig(limitBytes: number): Docker.HostConfig['LogConfig'] {
  return {
    Type: 'json-file',
    Config: { 'max-size': String(Math.floor(limitBytes / LOG_FILES)), 'max-file': String(LOG_FILES) },
  };
}

/** Docker's multiplexed log stream as plain bytes; backpressure reaches the engine's connection. */
class LogDemuxer extends Transform {
  private readonly demux = new StreamDemuxer((_channel, payload) => this.push(payload));

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.demux.push(chunk);
    done();
  }
}

/**
 * The main process's output, streamed from the engine as it is read: never collected whole
 * (dockerode's own `logs()` buffers the whole answer unless it follows, and a box that wrote a
 * gigabyte made that a string V8 refuses). `tail` is done by the engine, from the end of the file.
 */
export async function logs(docker: Docker, id: string, options: { tail?: number; follow: boolean }): Promise<Readable> {
  const query = {
    stdout: true,
    stderr: true,
    follow: options.follow,
    ...(options.tail !== undefined ? { tail: options.tail } : {}),
  };
  const request = call(
    () =>
      new Promise<Readable>((resolve, reject) =>
        docker.modem.dial(
          {
            path: `/containers/${encodeURIComponent(id)}/logs?`,
            method: 'GET',
            isStream: true,
            statusCodes: { 200: true, 404: 'no such container', 500: 'server error' },
            options: query,
          },
          (err, data) => (err ? reject(err) : resolve(data as Readable)),
        ),
      ),
  );
  // Podman 4.3 sends a followed log's headers only with its first line: a quiet box's log would
  // not open until it wrote. The stream is handed up at once (the container checked first, so a
  // missing one is still not_found) and fed once the engine answers.
  if (options.follow && (await isPodman(docker))) {
    request.catch(() => undefined);
    await call(() => docker.getContainer(id).inspect());
    const out = new LogDemuxer();
    request.then(
      (raw) => (out.destroyed ? raw.destroy() : pipeline(raw, out, () => undefined)),
      (err: unknown) => out.destroy(err as Error),
    );
    return out;
  }
  // The reader's errors end here: a consumer that goes away destroys the demuxer, which ends the request.
  return pipeline(await request, new LogDemuxer(), () => undefined);
}
