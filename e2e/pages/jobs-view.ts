import type { Locator } from 'playwright-core';
import { PageObject } from './page-object';

/** A box's Jobs tab: the start form, the jobs table, the open job's output. */
export class JobsView extends PageObject {
  readonly command = this.page.getByRole('textbox', { name: 'Command' });
  readonly start = this.page.getByRole('button', { name: 'Start job' });
  readonly table = this.page.getByRole('table', { name: 'Jobs' });
  readonly output = this.page.getByRole('log', { name: 'Job output' });
  readonly stream = this.page.getByRole('radiogroup', { name: 'Stream' });

  /** The job's row, headed by its command. */
  row(command: string): Locator {
    return this.rowOf(this.table, command);
  }

  kill(command: string): Locator {
    return this.page.getByRole('button', { name: `Kill ${command}`, exact: true });
  }
}
