import type { Locator, Page } from 'playwright-core';
import { ConsoleView } from './console-view';
import { ResourceListPage } from './page-object';

/** Boxes in a project: the table, its filters, the bulk toolbar. */
export class BoxListPage extends ResourceListPage {
  readonly search = this.page.getByRole('textbox', { name: 'Search' });
  readonly statusFilter = this.page.getByRole('combobox', { name: 'Status' });
  readonly tagFilter = this.page.getByRole('combobox', { name: 'Tag' });
  readonly count = this.page.getByRole('search', { name: 'Filter boxes' }).getByRole('status');
  readonly bulkBar = this.page.getByRole('toolbar', { name: 'Selected boxes' });
  readonly selectAll = this.page.getByRole('checkbox', { name: 'Select all boxes shown' });

  constructor(page: Page) {
    super(page, 'Boxes', 'Create box');
  }

  readonly fromFolderButton = this.page.getByRole('button', { name: 'Box from folder', exact: true });

  /** The "Box from folder" dialog and its parts. */
  fromFolderDialog() {
    const dialog = this.page.getByRole('dialog', { name: 'Box from folder' });
    return {
      dialog,
      folder: dialog.getByLabel('Project folder'),
      chosen: dialog.getByLabel('Chosen folder'),
      name: dialog.getByRole('textbox', { name: 'Name' }),
      submit: dialog.getByRole('button', { name: 'Make box', exact: true }),
      cancel: dialog.getByRole('button', { name: 'Cancel', exact: true }),
      close: dialog.getByRole('button', { name: 'Close', exact: true }).last(),
      status: dialog.getByRole('status', { name: 'Box up status' }),
      log: dialog.getByRole('log', { name: 'Box up log' }),
    };
  }

  heading(project: string): Locator {
    return this.page.getByRole('heading', { name: `Boxes in ${project}`, exact: true });
  }

  /** The row's status badge showing `status`. */
  status(name: string, status: string): Locator {
    return this.row(name).getByRole('cell').getByText(status, { exact: true });
  }

  /** The row's globe: the link to where the box is published, by its name (any globe by default). */
  globe(name: string, label: string | RegExp = /^published at /): Locator {
    return this.row(name).getByRole('link', { name: label, exact: true });
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

  /** Opens the box's console from its row, as a user would: the console, once connected. */
  async openConsole(name: string): Promise<ConsoleView> {
    await this.consoleLink(name)
      .click()
      .catch(async (err: Error) => {
        // CI41 lost one such click (30 s) with nothing to tell why: a timeout says what the list showed.
        throw new Error(`no console link for ${name} at ${this.page.url()}; the page shows:\n${await this.shown()}`, {
          cause: err,
        });
      });
    const term = new ConsoleView(this.page);
    await term.waitConnected();
    return term;
  }

  bulk(action: 'Stop selected' | 'Resume selected' | 'Delete selected'): Locator {
    return this.bulkBar.getByRole('button', { name: action });
  }

  /** The confirmation dialog's confirm button (e.g. "Delete 3 boxes"), by a part of its name. */
  override confirm(label: string | RegExp): Locator {
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
