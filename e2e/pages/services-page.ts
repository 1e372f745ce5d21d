import type { Locator } from 'playwright-core';
import { errorAtField } from './field-error';
import { PageObject } from './page-object';

/** The Services page: the create dialog, one card per service (URL, live color, progress, timeline, actions) and the deploy dialog. */
export class ServicesPage extends PageObject {
  private readonly main = this.page.getByRole('main');
  readonly heading = this.main.getByRole('heading', { level: 2, name: 'Services' });
  readonly createButton = this.main.getByRole('button', { name: 'Create service', exact: true });
  readonly empty = this.main.getByText(/^No services in /);
  readonly createForm = this.page.getByRole('form', { name: 'Create a service' });

  /** A field of the create form by its label. */
  field(label: string): Locator {
    return this.createForm.getByRole('textbox', { name: label, exact: true });
  }

  /**
   * Submits the create form and waits until it answers: a field marked invalid or an alert in the
   * form. When neither shows (the dialog closed, or nothing happened), the failure says what the
   * form showed, so a refusal that never arrived is told apart from one shown elsewhere.
   */
  async submitCreateExpectingRefusal(): Promise<void> {
    await this.createForm.getByRole('button', { name: 'Create and deploy' }).click();
    const answered = this.createForm.locator('[aria-invalid="true"]').or(this.createForm.getByRole('alert')).first();
    try {
      await answered.waitFor({ timeout: 30_000 });
    } catch (err) {
      const open = (await this.createForm.count()) > 0;
      const text = open ? await this.createForm.innerText() : '(the dialog closed)';
      throw new Error(`the create form showed no refusal: ${text}`, { cause: err });
    }
  }

  /** Picks Public or Token access in the create form. */
  async chooseAccess(label: 'Public' | 'Token'): Promise<void> {
    await this.createForm.getByRole('radiogroup', { name: 'Access' }).getByText(label, { exact: true }).click();
  }

  /** Adds a variable row to an environment editor inside `scope` and fills it. */
  async addVariable(scope: Locator, key: string, value: string): Promise<void> {
    const rows = await scope.getByRole('textbox', { name: /^variable \d+ name$/ }).count();
    await scope.getByRole('button', { name: 'Add variable' }).click();
    await scope.getByRole('textbox', { name: `variable ${rows + 1} name` }).fill(key);
    await scope.getByRole('textbox', { name: `variable ${rows + 1} value` }).fill(value);
  }

  card(name: string): Locator {
    return this.page.getByRole('region', { name: `Service ${name}`, exact: true });
  }

  /** "Live color: blue", "Live color: none". */
  live(name: string, color: 'blue' | 'green' | 'none'): Locator {
    return this.card(name).getByRole('status', { name: `Live color: ${color}`, exact: true });
  }

  /** The deployment under way, with its current step. */
  progress(name: string): Locator {
    return this.card(name).getByRole('status', { name: `Progress of ${name}`, exact: true });
  }

  timeline(name: string): Locator {
    return this.card(name).getByRole('list', { name: `Deployments of ${name}`, exact: true });
  }

  /** Timeline entries, newest first; their names say kind, id, status and color. */
  entries(name: string): Locator {
    return this.timeline(name).getByRole('listitem');
  }

  /** The `nth` timeline entry (0 is the newest) when its name matches `label`. */
  entry(name: string, nth: number, label: RegExp): Locator {
    return this.entries(name)
      .nth(nth)
      .and(this.page.getByRole('listitem', { name: label }));
  }

  urlLink(name: string): Locator {
    return this.card(name).getByRole('link', { name: /^Open http.* in the browser$/ });
  }

  boxLink(name: string, box: string): Locator {
    return this.card(name)
      .getByRole('link', { name: `Open box ${box}`, exact: true })
      .first();
  }

  deployButton(name: string): Locator {
    return this.card(name).getByRole('button', { name: `Deploy ${name}`, exact: true });
  }

  rollbackButton(name: string): Locator {
    return this.card(name).getByRole('button', { name: `Roll back ${name}`, exact: true });
  }

  deleteButton(name: string): Locator {
    return this.card(name).getByRole('button', { name: `Delete service ${name}`, exact: true });
  }

  deployForm(name: string): Locator {
    return this.page.getByRole('form', { name: `Deploy ${name}`, exact: true });
  }

  /** The text of the error shown at a field (null when the field is valid). */
  fieldError(field: Locator): Promise<string | null> {
    return errorAtField(field);
  }
}
