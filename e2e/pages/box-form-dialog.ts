import type { Locator, Page } from 'playwright-core';
import { errorAtField } from './field-error';
import { PageObject } from './page-object';

/** The create (or edit) dialog. */
export class BoxFormDialog extends PageObject {
  readonly dialog: Locator;
  readonly name: Locator;
  readonly cpus: Locator;
  readonly memory: Locator;
  readonly submit: Locator;
  readonly progress: Locator;
  readonly allowedHosts: Locator;

  constructor(page: Page, title: string | RegExp = 'Create a box') {
    super(page);
    this.dialog = page.getByRole('dialog', { name: title });
    this.name = this.dialog.getByRole('textbox', { name: 'Name', exact: true });
    this.cpus = this.dialog.getByRole('textbox', { name: 'CPUs' });
    this.memory = this.dialog.getByRole('textbox', { name: 'Memory (MiB)' });
    this.submit = this.dialog.getByRole('button', { name: /^(Create|Save)$/ });
    this.progress = this.dialog.getByRole('status', { name: 'Progress' });
    this.allowedHosts = this.dialog.getByRole('textbox', { name: 'Allowed hosts' });
  }

  /** Internet: open, off, or only these hosts. */
  async setInternet(choice: 'Open' | 'Off' | 'Only these hosts'): Promise<void> {
    await this.dialog.getByRole('radiogroup', { name: 'Internet' }).getByText(choice, { exact: true }).click();
  }

  /** Picks a secret in the Secrets field (its option reads "NAME → hosts"). */
  async pickSecret(name: string): Promise<void> {
    await this.dialog.getByRole('combobox', { name: 'Secrets' }).click();
    await this.page.getByRole('option', { name: new RegExp(`^${name} → `) }).click();
  }

  /** The text of the error shown at a field (null when the field is valid). */
  fieldError(field: Locator): Promise<string | null> {
    return errorAtField(field);
  }

  async addPair(noun: 'variable' | 'tag', key: string, value: string): Promise<void> {
    await this.dialog.getByRole('button', { name: `Add ${noun}` }).click();
    const n = await this.dialog.getByRole('textbox', { name: new RegExp(`^${noun} \\d+ name$`) }).count();
    await this.dialog.getByRole('textbox', { name: `${noun} ${n} name` }).fill(key);
    await this.dialog.getByRole('textbox', { name: `${noun} ${n} value` }).fill(value);
  }

  /** Sets a clock as the form words it: `clock('Pause after … idle', 10, 'minutes')`; an empty amount is never. */
  async clock(sentence: string, amount: number | '', unit: 'seconds' | 'minutes' | 'hours' | 'days'): Promise<void> {
    await this.dialog.getByRole('textbox', { name: sentence, exact: true }).fill(String(amount));
    await this.dialog.getByRole('combobox', { name: `${sentence}: unit` }).click();
    await this.page.getByRole('option', { name: unit, exact: true }).click();
  }

  /** Adds a data volume mount row: the volume picked from its list, the path, read-only or not. */
  async addMount(volume: string, path: string, readOnly = false): Promise<void> {
    await this.dialog.getByRole('button', { name: 'Add volume mount' }).click();
    const n = await this.dialog.getByRole('combobox', { name: /^Mount \d+ volume$/ }).count();
    await this.dialog.getByRole('combobox', { name: `Mount ${n} volume` }).click();
    await this.page.getByRole('option', { name: volume, exact: true }).click();
    await this.dialog.getByRole('textbox', { name: `Mount ${n} path` }).fill(path);
    if (readOnly) await this.dialog.getByRole('checkbox', { name: `Mount ${n} read-only` }).check();
  }
}
