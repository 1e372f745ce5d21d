import type { Locator, Page } from 'playwright-core';

export class StatsView {
  constructor(readonly page: Page) {}

  chart(title: 'CPU' | 'Memory' | 'Network' | 'Processes'): Locator {
    return this.page.getByRole('figure', { name: `${title} chart` });
  }

  /** The chart's caption: the newest value, e.g. "412.0 KiB of 1.0 GiB". */
  now(title: 'CPU' | 'Memory' | 'Network' | 'Processes'): Locator {
    return this.chart(title).getByRole('status', { name: `${title} now` });
  }
}
