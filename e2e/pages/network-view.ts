import type { Locator } from 'playwright-core';
import { PageObject } from './page-object';

/** A box's Network tab: its policy in words, the edit action, the recent connections. */
export class NetworkView extends PageObject {
  readonly policy = this.page.getByRole('region', { name: 'Network' });
  readonly edit = this.page.getByRole('button', { name: 'Edit network' });
  readonly connections = this.page.getByRole('table', { name: 'Recent connections' });
  readonly dialog = this.page.getByRole('dialog');

  /** The rows of the connections table whose host is `host`. */
  rows(host: string): Locator {
    return this.connections.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name: host }) });
  }

  /** Picks an "Internet" choice in the edit dialog (Open, Off, Only these hosts). */
  async chooseInternet(label: 'Open' | 'Off' | 'Only these hosts'): Promise<void> {
    await this.dialog.getByRole('radiogroup', { name: 'Internet' }).getByText(label, { exact: true }).click();
  }
}
