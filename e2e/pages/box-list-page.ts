import type { Locator, Page } from 'playwright-core';

/** Boxes in a project: the table, its filters, the bulk toolbar. */
export class BoxListPage {
  readonly table: Locator;
  readonly createButton: Locator;
  readonly search: Locator;
  readonly statusFilter: Locator;
  readonly tagFilter: Locator;
  readonly count: Locator;
  readonly bulkBar: Locator;
  readonly selectAll: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Boxes' });
    this.createButton = page.getByRole('button', { name: 'Create box', exact: true });
    this.search = page.getByRole('textbox', { name: 'Search' });
    this.statusFilter = page.getByRole('combobox', { name: 'Status' });
    this.tagFilter = page.getByRole('combobox', { name: 'Tag' });
    this.count = page.getByRole('search', { name: 'Filter boxes' }).getByRole('status');
    this.bulkBar = page.getByRole('toolbar', { name: 'Selected boxes' });
    this.selectAll = page.getByRole('checkbox', { name: 'Select all boxes shown' });
  }

  heading(project: string): Locator {
    return this.page.getByRole('heading', { name: `Boxes in ${project}`, exact: true });
  }

  /** The row whose header cell is the box's name. */
  row(name: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
  }

  /** The row's status badge showing `status`. */
  status(name: string, status: string): Locator {
    return this.row(name).getByRole('cell').getByText(status, { exact: true });
  }

  select(name: string): Locator {
    return this.page.getByRole('checkbox', { name: `Select ${name}`, exact: true });
  }

  rowAction(name: string, action: 'Stop' | 'Resume' | 'Delete'): Locator {
    return this.row(name).getByRole('button', { name: `${action} ${name}`, exact: true });
  }

  consoleLink(name: string): Locator {
    return this.row(name).getByRole('link', { name: `Open a console in ${name}` });
  }

  bulk(action: 'Stop selected' | 'Resume selected' | 'Delete selected'): Locator {
    return this.bulkBar.getByRole('button', { name: action });
  }

  /** The confirmation dialog's confirm button (e.g. "Delete 3 boxes"). */
  confirm(label: string | RegExp): Locator {
    return this.page.getByRole('dialog').getByRole('button', { name: label });
  }

  /** Rows actually in the DOM (the table is virtualised). */
  renderedRows(): Locator {
    return this.table.getByRole('rowheader');
  }

  scroller(): Locator {
    return this.table.locator('xpath=..');
  }
}
