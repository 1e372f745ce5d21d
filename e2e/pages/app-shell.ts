import type { Locator } from 'playwright-core';
import { PageObject } from './page-object';

/** The frame around every signed-in view: header, sidebar, palette. */
export class AppShell extends PageObject {
  readonly heading = this.page.getByRole('heading', { level: 1, name: 'Boxdesk' });
  readonly nav = this.page.getByRole('navigation', { name: 'Main' });
  readonly project = this.page.getByRole('combobox', { name: 'Project' });
  readonly signOutButton = this.page.getByRole('button', { name: 'Sign out' });
  readonly paletteButton = this.page.getByRole('button', { name: 'Open the command palette' });
  readonly palette = this.page.getByRole('dialog').filter({ has: this.page.getByRole('textbox', { name: 'Command' }) });

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
