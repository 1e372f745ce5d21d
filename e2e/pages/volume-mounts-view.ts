import type { Locator, Page } from 'playwright-core';
import { PageObject } from './page-object';

/** A box's Volumes tab: what it mounts, and the attach form. */
export class VolumeMountsView extends PageObject {
  readonly form: Locator;
  readonly volume: Locator;
  readonly path: Locator;
  readonly readOnly: Locator;
  readonly attachButton: Locator;
  readonly busy: Locator;
  readonly alert: Locator;

  constructor(
    page: Page,
    readonly box: string,
  ) {
    super(page);
    this.form = page.getByRole('form', { name: 'Attach a volume' });
    this.volume = this.form.getByRole('combobox', { name: 'Volume' });
    this.path = this.form.getByRole('textbox', { name: 'Path in the box' });
    this.readOnly = this.form.getByRole('checkbox', { name: 'Read-only' });
    this.attachButton = this.form.getByRole('button', { name: 'Attach', exact: true });
    this.busy = page.getByRole('status', { name: 'Changing mounts' });
    this.alert = page.getByRole('main').getByRole('alert');
  }

  table(): Locator {
    return this.page.getByRole('table', { name: `Volumes mounted in ${this.box}` });
  }

  row(volume: string): Locator {
    return this.rowOf(this.table(), volume);
  }

  detachButton(volume: string): Locator {
    return this.row(volume).getByRole('button', { name: `Detach ${volume}`, exact: true });
  }
}
