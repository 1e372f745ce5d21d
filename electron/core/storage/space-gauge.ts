import type { FastifyBaseLogger } from 'fastify';
import type { StorageDriver, StoreSpace } from './storage-driver';

/**
 * The store's size and use, measured when someone asks rather than at every start: on some drivers
 * a measure is a helper container (about a second and the engine's CPU), and most cores are never
 * asked. The first ask waits for a measure; later ones get the last figures at once and refresh them
 * in the background once they are older than `maxAgeMs`.
 */
export class SpaceGauge {
  private last: StoreSpace | null = null;
  private at = 0;
  private measuring: Promise<void> | null = null;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly maxAgeMs = 10_000,
  ) {}

  /** The last figures, however old; null before the first measure. */
  get value(): StoreSpace | null {
    return this.last;
  }

  /** Measures now (joining a measure in flight) and waits for it; a failure is thrown. */
  refresh(driver: StorageDriver): Promise<void> {
    this.measuring ??= driver
      .space()
      .then((space) => {
        this.last = space;
        this.at = Date.now();
      })
      .finally(() => (this.measuring = null));
    return this.measuring;
  }

  /** The figures to report: measured first when there are none, refreshed behind the answer when stale. */
  async current(driver: StorageDriver): Promise<StoreSpace | null> {
    const measure = () =>
      this.refresh(driver).catch((err: Error) => this.log.warn({ err }, 'could not measure the copy-on-write store'));
    if (!this.last) await measure();
    else if (Date.now() - this.at > this.maxAgeMs) void measure();
    return this.last;
  }

  /** Waits for a measure in flight (its helper must not outlive the core's stop). */
  async idle(): Promise<void> {
    await this.measuring?.catch(() => undefined);
  }
}
