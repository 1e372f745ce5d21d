import type { Locator, Page } from 'playwright-core';
import { errorAtField } from './field-error';
import { PageObject } from './page-object';

/** A box's Publish tab: the form (port, access, domains), the URL and its actions. */
export class PublishView extends PageObject {
  readonly tab: Locator;
  readonly form: Locator;
  readonly port: Locator;
  readonly access: Locator;
  readonly domains: Locator;
  readonly publishButton: Locator;
  readonly updateButton: Locator;
  readonly unpublishButton: Locator;
  readonly urlSection: Locator;
  readonly copyUrl: Locator;
  /** With access "token": the note that opening the link signs the browser in. */
  readonly signInNote: Locator;

  constructor(
    page: Page,
    readonly name: string,
  ) {
    super(page);
    this.tab = page.getByRole('tab', { name: 'Publish', exact: true });
    this.form = page.getByRole('form', { name: `Publish ${name}` });
    this.port = this.form.getByRole('textbox', { name: /^Port/ });
    this.access = this.form.getByRole('radiogroup', { name: 'Access' });
    this.domains = this.form.getByRole('combobox', { name: 'Domains' });
    this.publishButton = this.form.getByRole('button', { name: 'Publish', exact: true });
    this.updateButton = this.form.getByRole('button', { name: 'Update', exact: true });
    this.unpublishButton = this.form.getByRole('button', { name: 'Unpublish', exact: true });
    this.urlSection = page.getByRole('region', { name: 'Published URL' });
    this.copyUrl = this.urlSection.getByRole('button', { name: 'Copy the URL' });
    this.signInNote = this.urlSection.getByRole('alert').filter({ hasText: 'Opening it signs the browser in' });
  }

  /** The link to the published URL (opens in the system browser / a new tab). */
  urlLink(url?: string): Locator {
    return this.urlSection.getByRole('link', {
      name: url ? `Open ${url} in the browser` : /^Open http.* in the browser$/,
    });
  }

  async chooseAccess(label: 'Public' | 'Token'): Promise<void> {
    await this.access.getByText(label, { exact: true }).click();
  }

  /** Types domains into the tags input, each confirmed with Enter. */
  async addDomains(...domains: string[]): Promise<void> {
    for (const d of domains) {
      await this.domains.fill(d);
      await this.domains.press('Enter');
    }
  }

  /** The text of the error shown at a field (null when the field is valid). */
  fieldError(field: Locator): Promise<string | null> {
    return errorAtField(field);
  }
}
