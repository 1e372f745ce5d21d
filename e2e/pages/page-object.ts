import type { Locator, Page } from 'playwright-core';

/**
 * What every page object holds: the page, and the lookups several views make
 * the same way. A view declares its locators as fields
 * (`readonly table = this.page.getByRole(…)`): they are set once this
 * constructor has run, so `this.page` is there for them.
 */
export abstract class PageObject {
  constructor(readonly page: Page) {}

  /** The row of `table` whose row header is `name`. */
  protected rowOf(table: Locator, name: string): Locator {
    return table.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
  }

  /** The value cell of the row of `table` headed `label` (a details table). */
  protected cellOf(table: Locator, label: string): Locator {
    return this.rowOf(table, label).getByRole('cell');
  }

  /** The open confirmation dialog's button ("Delete volume", "Restore", …). */
  confirm(label: string): Locator {
    return this.page.getByRole('dialog').getByRole('button', { name: label, exact: true });
  }

  /** What the page's main region shows now (its first 600 characters), for a failure's message. */
  async shown(): Promise<string> {
    const text = await this.page
      .getByRole('main')
      .innerText({ timeout: 1_000 })
      .catch(() => '');
    return text.slice(0, 600);
  }
}

/** A page listing one kind of resource: its table (a row a resource, headed by its name) and its create button. */
export abstract class ResourceListPage extends PageObject {
  readonly table: Locator;
  readonly createButton: Locator;

  constructor(page: Page, table: string, createLabel: string) {
    super(page);
    this.table = page.getByRole('table', { name: table });
    this.createButton = page.getByRole('button', { name: createLabel, exact: true });
  }

  row(name: string): Locator {
    return this.rowOf(this.table, name);
  }
}
