import type { Locator, Page } from 'playwright-core';
import { PageObject } from './page-object';

/** The confirmation a delete (restore, detach, revoke…) asks for: its buttons, and the core's refusal shown in it. */
export class ConfirmDialog extends PageObject {
  readonly dialog: Locator;
  /** The problem the core answered with (a 409 naming what still needs it); the dialog stays open. */
  readonly refusal: Locator;

  constructor(page: Page, title: string | RegExp) {
    super(page);
    this.dialog = page.getByRole('dialog', { name: title });
    this.refusal = this.dialog.getByRole('alert');
  }

  button(label: string): Locator {
    return this.dialog.getByRole('button', { name: label, exact: true });
  }

  /** Closes the dialog without doing anything. */
  async cancel(): Promise<void> {
    await this.button('Cancel').click();
    await this.dialog.waitFor({ state: 'hidden' });
  }
}
