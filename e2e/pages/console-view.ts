import type { Locator } from 'playwright-core';
import { PageObject } from './page-object';

/**
 * The Console tab. The terminal runs in screen-reader mode, so its rows are
 * an accessible list: what a screen reader reads is what the test reads.
 */
export class ConsoleView extends PageObject {
  readonly tabs = this.page.getByRole('tablist', { name: 'Consoles' });
  readonly newConsole = this.page.getByRole('button', { name: 'New console' });

  terminal(n = 1): Locator {
    return this.page.getByRole('region', { name: `Console ${n}` });
  }

  state(n = 1): Locator {
    return this.page.getByRole('status', { name: new RegExp(`^Console ${n}: `) });
  }

  /** Until the console says it is open; a timeout says what it said instead and what the page shows. */
  async waitConnected(n = 1): Promise<void> {
    try {
      await this.page.getByRole('status', { name: `Console ${n}: open` }).waitFor();
    } catch (err) {
      const state = this.state(n);
      const said = await Promise.all([
        state.getAttribute('aria-label', { timeout: 1_000 }),
        state.innerText({ timeout: 1_000 }),
      ]).then(
        ([label, text]) => `${label}, "${text}"`,
        () => 'no console state at all',
      );
      const shown = await this.shown();
      throw new Error(`console ${n} did not open (${said}) at ${this.page.url()}; the page shows:\n${shown}`, {
        cause: err,
      });
    }
  }

  /** The terminal's visible text, row by row. */
  async text(n = 1): Promise<string> {
    const rows = await this.terminal(n).getByRole('listitem').allTextContents();
    return rows.map((r) => r.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
  }

  async waitForText(pattern: RegExp, n = 1, ms = 15_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + ms;
    for (;;) {
      const text = await this.text(n);
      const m = pattern.exec(text);
      if (m) return m;
      if (Date.now() > deadline) throw new Error(`console ${n} never showed ${pattern}; it shows:\n${text}`);
      await this.page.waitForTimeout(100);
    }
  }

  /** Types into the terminal as a user would. */
  async type(text: string, n = 1): Promise<void> {
    await this.terminal(n).click();
    await this.page.keyboard.type(text);
  }

  async press(key: string, n = 1): Promise<void> {
    await this.terminal(n).click();
    await this.page.keyboard.press(key);
  }

  ended(): Locator {
    return this.page.getByRole('alert').filter({ hasText: 'This console session has ended' });
  }

  startNewSession(): Locator {
    return this.page.getByRole('button', { name: 'Start a new session' });
  }

  closeButton(n: number): Locator {
    return this.page.getByRole('button', { name: `Close Console ${n}` });
  }
}
