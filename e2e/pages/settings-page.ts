import type { Locator, Page } from 'playwright-core';

export class SettingsPage {
  readonly tokens: Locator;
  readonly createToken: Locator;
  readonly engine: Locator;
  readonly storage: Locator;

  constructor(readonly page: Page) {
    this.tokens = page.getByRole('table', { name: 'Tokens' });
    this.createToken = page.getByRole('button', { name: 'Create token' });
    this.engine = page.getByRole('table', { name: 'Engine and data' });
    this.storage = page.getByRole('table', { name: 'Copy-on-write store' });
  }

  storageField(label: string): Locator {
    return this.storage
      .getByRole('row')
      .filter({ has: this.page.getByRole('rowheader', { name: label, exact: true }) })
      .getByRole('cell');
  }

  tokenRow(name: string): Locator {
    return this.tokens.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
  }

  engineField(label: string): Locator {
    return this.engine
      .getByRole('row')
      .filter({ has: this.page.getByRole('rowheader', { name: label, exact: true }) })
      .getByRole('cell');
  }

  theme(label: 'Follow the system' | 'Light' | 'Dark'): Locator {
    return this.page.getByRole('radio', { name: label });
  }

  /** The segmented control draws its own label over the (visually hidden) radio. */
  async chooseTheme(label: 'Follow the system' | 'Light' | 'Dark'): Promise<void> {
    await this.page.getByRole('radiogroup', { name: 'Theme' }).getByText(label, { exact: true }).click();
  }

  createDialog(): {
    dialog: Locator;
    name: Locator;
    scope(s: string): Locator;
    project: Locator;
    submit: Locator;
    secret: Locator;
    copy: Locator;
    done: Locator;
  } {
    const dialog = this.page.getByRole('dialog');
    return {
      dialog,
      name: dialog.getByRole('textbox', { name: 'Name' }),
      scope: (s) => dialog.getByRole('checkbox', { name: new RegExp(`^${s}:`) }),
      project: dialog.getByRole('textbox', { name: 'Project' }),
      submit: dialog.getByRole('button', { name: 'Create token' }),
      secret: dialog.getByLabel('New token'),
      copy: dialog.getByRole('button', { name: /^(Copy token|Copied)$/ }),
      done: dialog.getByRole('button', { name: 'Done' }),
    };
  }
}
