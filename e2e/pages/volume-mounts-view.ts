import type { Locator, Page } from 'playwright-core';

/** A box's Volumes tab: what it mounts, and the attach form. */
export class VolumeMountsView {
  readonly form: Locator;
  readonly volume: Locator;
  readonly path: Locator;
  readonly readOnly: Locator;
  readonly attachButton: Locator;
  readonly busy: Locator;
  readonly alert: Locator;

  constructor(
    readonly page: Page,
    readonly box: string,
  ) {
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
    return this.table()
      .getByRole('row')
      .filter({ has: this.page.getByRole('rowheader', { name: volume, exact: true }) });
  }

  detachButton(volume: string): Locator {
    return this.row(volume).getByRole('button', { name: `Detach ${volume}`, exact: true });
  }

  confirm(label: string): Locator {
    return this.page.getByRole('dialog').getByRole('button', { name: label, exact: true });
  }
}
