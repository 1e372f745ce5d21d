import type { Locator } from 'playwright-core';
import { PageObject } from './page-object';

export class SignInPage extends PageObject {
  readonly form = this.page.getByRole('form', { name: 'Sign in' });
  readonly tokenField = this.page.getByLabel('Access token');
  readonly signInButton = this.page.getByRole('button', { name: 'Sign in' });
  /** Why we were signed out (a revoked token), when there is a reason. */
  readonly signedOutNotice = this.page.getByRole('alert').filter({ hasText: 'Signed out' });

  /** The 401's detail, shown at the token field. */
  fieldError(): Locator {
    return this.form.getByRole('alert');
  }

  async signIn(token: string): Promise<void> {
    await this.tokenField.fill(token);
    await this.signInButton.click();
  }
}
