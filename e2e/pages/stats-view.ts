import type { Locator, Page } from 'playwright-core';

export class StatsView {
  constructor(readonly page: Page) {}

  chart(title: 'CPU' | 'Memory' | 'Network' | 'Processes'): Locator {
    return this.page.getByRole('figure', { name: `${title} chart` });
  }

  /** The chart's caption: the newest value, e.g. "1.2 MiB of 1.00 GiB". */
  now(title: 'CPU' | 'Memory' | 'Network' | 'Processes'): Locator {
    return this.chart(title).getByRole('status', { name: `${title} now` });
  }
}
