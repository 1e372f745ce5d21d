import type { Locator, Page } from 'playwright-core';

/** The Boxdesk window, seen the way a user (or a screen reader) sees it. */
export class BoxdeskPage {
  readonly heading: Locator;
  readonly status: Locator;
  readonly tokenField: Locator;
  readonly signInButton: Locator;
  readonly signOutButton: Locator;
  readonly signInError: Locator;
  readonly basesTable: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1, name: 'Boxdesk' });
    this.status = page.getByRole('region', { name: 'Status' });
    this.tokenField = page.getByLabel('Access token');
    this.signInButton = page.getByRole('button', { name: 'Sign in' });
    this.signOutButton = page.getByRole('button', { name: 'Sign out' });
    this.signInError = page.getByRole('region', { name: 'Sign in' }).getByRole('alert');
    this.basesTable = page.getByRole('table', { name: 'Bases' });
  }

  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await this.heading.waitFor();
  }

  /** The engine line, e.g. "Engine: healthy". */
  engine(text: string | RegExp): Locator {
    return this.status.getByRole('status').filter({ hasText: text });
  }

  version(version: string): Locator {
    return this.status.getByRole('definition').filter({ hasText: version });
  }

  async signIn(token: string): Promise<void> {
    await this.tokenField.fill(token);
    await this.signInButton.click();
  }

  /** The bases table's row whose header cell is the base's name. */
  baseRow(name: string): Locator {
    return this.basesTable.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
  }
}
