import type { Locator, Page } from 'playwright-core';
import { PageObject } from './page-object';

/** One box: header actions and the tabs (Overview, Logs, Console, Stats, …). */
export class BoxDetailPage extends PageObject {
  readonly details = this.page.getByRole('table', { name: 'Box details' });

  constructor(
    page: Page,
    readonly name: string,
  ) {
    super(page);
  }

  heading(): Locator {
    return this.page.getByRole('heading', { level: 2, name: this.name, exact: true });
  }

  tab(label: 'Overview' | 'Logs' | 'Console' | 'Jobs' | 'Stats' | 'Snapshots' | 'Volumes' | 'Network'): Locator {
    return this.page.getByRole('tab', { name: label, exact: true });
  }

  /** The value cell of an Overview row. */
  field(label: string): Locator {
    return this.cellOf(this.details, label);
  }

  button(label: 'Stop' | 'Resume' | 'Pause' | 'Wake' | 'Edit' | 'Delete'): Locator {
    return this.page.getByRole('main').getByRole('button', { name: label, exact: true });
  }

  /** What the box's clocks do next ("Pauses in 10 minutes if left idle"). */
  nextChange(): Locator {
    return this.page.getByRole('main').getByLabel('Next change', { exact: true });
  }
}
