import type { Locator, Page } from 'playwright-core';

export class SignInPage {
  readonly form: Locator;
  readonly tokenField: Locator;
  readonly signInButton: Locator;
  /** Why we were signed out (a revoked token), when there is a reason. */
  readonly signedOutNotice: Locator;

  constructor(readonly page: Page) {
    this.form = page.getByRole('form', { name: 'Sign in' });
    this.tokenField = page.getByLabel('Access token');
    this.signInButton = page.getByRole('button', { name: 'Sign in' });
    this.signedOutNotice = page.getByRole('alert').filter({ hasText: 'Signed out' });
  }

  /** The 401's detail, shown at the token field. */
  fieldError(): Locator {
    return this.form.getByRole('alert');
  }

  async signIn(token: string): Promise<void> {
    await this.tokenField.fill(token);
    await this.signInButton.click();
  }
}
