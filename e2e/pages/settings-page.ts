import type { Locator } from 'playwright-core';
import { PageObject } from './page-object';

export class SettingsPage extends PageObject {
  readonly tokens = this.page.getByRole('table', { name: 'Tokens' });
  readonly createToken = this.page.getByRole('button', { name: 'Create token' });
  readonly engine = this.page.getByRole('table', { name: 'Engine and data' });
  readonly storage = this.page.getByRole('table', { name: 'Copy-on-write store' });
  readonly pools = this.page.getByRole('table', { name: 'Warm pools' });
  readonly secrets = this.page.getByRole('table', { name: 'Secrets' });
  readonly addSecret = this.page.getByRole('button', { name: 'Add secret' });

  secretRow(name: string): Locator {
    return this.rowOf(this.secrets, name);
  }

  /** The "Add a secret" dialog: name, value (a password field), hosts, header. */
  secretDialog() {
    const dialog = this.page.getByRole('dialog', { name: 'Add a secret' });
    return {
      dialog,
      name: dialog.getByRole('textbox', { name: 'Name' }),
      value: dialog.getByLabel('Value'),
      hosts: dialog.getByRole('textbox', { name: 'Hosts' }),
      header: dialog.getByRole('textbox', { name: 'Header' }),
      submit: dialog.getByRole('button', { name: 'Add secret' }),
    };
  }

  readonly regions = this.page.getByRole('table', { name: 'Regions' });

  /** A region's row, headed by its name (the first says "(default)"). */
  regionRow(heading: string): Locator {
    return this.rowOf(this.regions, heading);
  }

  poolRow(base: string): Locator {
    return this.rowOf(this.pools, base);
  }

  storageField(label: string): Locator {
    return this.cellOf(this.storage, label);
  }

  tokenRow(name: string): Locator {
    return this.rowOf(this.tokens, name);
  }

  engineField(label: string): Locator {
    return this.cellOf(this.engine, label);
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
