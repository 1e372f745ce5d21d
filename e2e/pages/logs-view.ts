import type { Locator, Page } from 'playwright-core';

export class LogsView {
  readonly log: Locator;
  readonly follow: Locator;
  readonly search: Locator;
  readonly download: Locator;

  constructor(readonly page: Page) {
    this.log = page.getByRole('log', { name: 'Logs' });
    this.follow = page.getByRole('switch', { name: 'Follow' });
    this.search = page.getByRole('textbox', { name: 'Search the logs' });
    this.download = page.getByRole('button', { name: 'Download logs' });
  }
}
