import type { Locator } from 'playwright-core';
import { PageObject } from './page-object';

export class StatsView extends PageObject {
  chart(title: 'CPU' | 'Memory' | 'Network' | 'Processes'): Locator {
    return this.page.getByRole('figure', { name: `${title} chart` });
  }

  /** The chart's caption: the newest value, e.g. "412.0 KiB of 1.0 GiB". */
  now(title: 'CPU' | 'Memory' | 'Network' | 'Processes'): Locator {
    return this.chart(title).getByRole('status', { name: `${title} now` });
  }
}
