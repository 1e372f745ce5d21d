import type { Locator, Page } from 'playwright-core';

/** The frame around every signed-in view: header, sidebar, palette. */
export class AppShell {
  readonly heading: Locator;
  readonly nav: Locator;
  readonly project: Locator;
  readonly signOutButton: Locator;
  readonly paletteButton: Locator;
  readonly palette: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1, name: 'Boxdesk' });
    this.nav = page.getByRole('navigation', { name: 'Main' });
    this.project = page.getByRole('combobox', { name: 'Project' });
    this.signOutButton = page.getByRole('button', { name: 'Sign out' });
    this.paletteButton = page.getByRole('button', { name: 'Open the command palette' });
    this.palette = page.getByRole('dialog').filter({ has: page.getByRole('textbox', { name: 'Command' }) });
  }

  /** The engine badge, e.g. "Engine: healthy"; its accessible name carries the reason. */
  engine(name: string | RegExp): Locator {
    return this.page.getByRole('status', { name });
  }

  navLink(label: string): Locator {
    return this.nav.getByRole('link', { name: label });
  }

  async switchProject(project: string): Promise<void> {
    await this.project.fill(project);
    await this.project.press('Enter');
  }

  themeToggle(): Locator {
    return this.page.getByRole('button', { name: /^Switch to the (light|dark) theme$/ });
  }

  /** Ctrl+K, type, pick the first match. */
  async runCommand(query: string, label: string | RegExp): Promise<void> {
    await this.page.keyboard.press('Control+k');
    const input = this.page.getByRole('textbox', { name: 'Command' });
    await input.fill(query);
    await this.page.getByRole('button', { name: label }).first().click();
  }
}
