import type { Locator, Page } from 'playwright-core';

/** One box: header actions and the tabs (Overview, Logs, Console, Stats, …). */
export class BoxDetailPage {
  readonly details: Locator;

  constructor(
    readonly page: Page,
    readonly name: string,
  ) {
    this.details = page.getByRole('table', { name: 'Box details' });
  }

  heading(): Locator {
    return this.page.getByRole('heading', { level: 2, name: this.name, exact: true });
  }

  tab(label: 'Overview' | 'Logs' | 'Console' | 'Stats' | 'Snapshots' | 'Volumes'): Locator {
    return this.page.getByRole('tab', { name: label, exact: true });
  }

  /** The value cell of an Overview row. */
  field(label: string): Locator {
    return this.details
      .getByRole('row')
      .filter({ has: this.page.getByRole('rowheader', { name: label, exact: true }) })
      .getByRole('cell');
  }

  button(label: 'Stop' | 'Resume' | 'Edit' | 'Delete'): Locator {
    return this.page.getByRole('main').getByRole('button', { name: label, exact: true });
  }
}
