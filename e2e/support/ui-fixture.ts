import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before } from 'node:test';
import type { Browser, BrowserContext, Download, Locator, Page } from 'playwright-core';
import { UI_DIR, ensureRendererBuilt, launchChromium } from '../../test-support/chromium';
import { boxCli, type CliRun } from '../../test-support/cli-runner';
import { ROOT, api, startCoreProcess, type CoreProcess } from '../../test-support/core-process';
import { clearProjects, teardown } from '../../test-support/teardown';
import { AppShell } from '../pages/app-shell';

export interface OpenOptions {
  /** Sign in through the sign-in URL (default), or arrive signed out. */
  signedIn?: boolean;
  colorScheme?: 'light' | 'dark';
  clipboard?: boolean;
  viewport?: { width: number; height: number };
  /** Then go to this route of the window (`/projects/p/boxes`), as a typed address would. */
  route?: string;
  /** Then switch to this project in the header, as a user would. */
  project?: string;
  /** The page's clock is Playwright's fake one, installed before the window loads (page.clock). */
  fakeClock?: boolean;
  /**
   * A browser context of its own (another browser: no cookie of the file's other pages). Without
   * it, the page is a new tab of the file's one context, with its own session storage and the
   * local storage and cookies of none of the tests before it.
   */
  isolated?: boolean;
}

export interface UiFixture {
  core(): CoreProcess;
  /** A fresh browser context on the served UI. */
  open(options?: OpenOptions): Promise<Page>;
  /** fetch against the core with its admin token. */
  api(method: string, pathname: string, body?: unknown): Promise<Response>;
  /** Runs the `box` CLI against this core; resolves with its exit code and output. */
  cli(...args: string[]): Promise<CliRun>;
  /** A box the test made: its project is cleared (services, boxes, snapshots, volumes) after the file's tests. */
  track(project: string, name: string): void;
  /** Clears a project now: what clearProjects (test-support/teardown.ts) removes. */
  clear(project: string): Promise<void>;
  /** A unique project and box name for a box the test makes itself, tracked for clearing. */
  uniqueNames(projectPrefix: string, boxPrefix: string): NewBox;
  /** A box of a unique name, created through the API in a project of a unique name. */
  uniqueBox(projectPrefix: string, boxPrefix: string, body?: Record<string, unknown>): Promise<NewBox>;
}

export interface NewBox {
  project: string;
  name: string;
}

/** A core serving the UI (its own data dir) and a Chromium on it; `after` removes both and clears every tracked project. */
export function uiFixture(
  options: { env?: NodeJS.ProcessEnv; args?: string[]; browserArgs?: string[] } = {},
): UiFixture {
  const state: {
    core?: CoreProcess;
    browser?: Browser;
    shared?: BrowserContext;
    contexts: BrowserContext[];
    projects: Set<string>;
  } = { contexts: [], projects: new Set() };
  before(async () => {
    ensureRendererBuilt();
    state.core = await startCoreProcess({
      args: ['--ui-dir', UI_DIR, ...(options.args ?? [])],
      env: { BOXDESK_RATE_LIMIT: '0', ...options.env },
    });
    state.browser = await launchChromium(options.browserArgs);
    state.shared = await newContext(state.browser);
    await state.shared.addInitScript(FRESH_TAB);
  });
  // A page left open keeps its event stream and re-renders on every event of the tests after
  // it: each test closes what it opened (eight idle pages took a core of CPU in ui-boxes).
  const closePages = async () => {
    const shared = state.shared;
    await Promise.allSettled([...state.contexts.splice(0), ...(shared?.pages() ?? [])].map((c) => c.close()));
    await shared?.clearCookies();
    await shared?.clearPermissions();
  };
  afterEach(closePages);
  after(async () => {
    await closePages();
    await state.browser?.close().catch(() => undefined);
    await teardown(state.core, { projects: [...state.projects] });
  });
  const fixture: UiFixture = {
    core: () => state.core!,
    async open(o: OpenOptions = {}) {
      const core = state.core!;
      let context = state.shared!;
      if (o.isolated) {
        context = await newContext(state.browser!);
        state.contexts.push(context);
      }
      if (o.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: core.url });
      const page = await context.newPage();
      if (o.viewport) await page.setViewportSize(o.viewport);
      if (o.colorScheme) await page.emulateMedia({ colorScheme: o.colorScheme });
      if (o.fakeClock) await page.clock.install();
      await page.goto(o.signedIn === false ? `${core.url}/` : `${core.url}/#token=${encodeURIComponent(core.token)}`);
      if (o.route) await page.goto(`${core.url}/#${o.route}`);
      if (o.project) await new AppShell(page).switchProject(o.project);
      return page;
    },
    api: (method, pathname, body) => api(state.core!, method, pathname, body),
    cli: boxCli(() => state.core!),
    track: (project) => void state.projects.add(project),
    clear: (project) => clearProjects(state.core!, [project]),
    uniqueNames(projectPrefix, boxPrefix) {
      const box = { project: uniqueName(projectPrefix), name: uniqueName(boxPrefix) };
      fixture.track(box.project, box.name);
      return box;
    },
    async uniqueBox(projectPrefix, boxPrefix, body = {}) {
      const box = fixture.uniqueNames(projectPrefix, boxPrefix);
      await createBoxViaApi(fixture, box.project, box.name, body);
      return box;
    },
  };
  return fixture;
}

/**
 * A browser context as the tests use it. A new tab of the file's one context costs Chromium about
 * half the CPU of a new context (1.3 s against 2.4 s here, for the window's first paint), and the
 * e2e files open about fifty.
 */
async function newContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({
    colorScheme: 'light',
    viewport: { width: 1280, height: 800 },
    // As a user who asks for less motion: the window's transitions (dialogs, menus) are skipped,
    // which the tests would otherwise wait out and Chromium draw, frame by frame.
    reducedMotion: 'reduce',
  });
  // 30 s: at the lanes' start, with every check and three files starting, a page's first elements
  // have taken over 15 s here (CI32, CI34, CI36 each lost one early test so); a missing element
  // still fails, later.
  context.setDefaultTimeout(30_000);
  return context;
}

/**
 * Run in every document of the shared context: a tab's first document starts from empty local
 * storage, as a test's own context did (the window keeps its last project there); a reload or a
 * popup (whose session storage is its opener's copy) keeps it.
 */
function FRESH_TAB(): void {
  try {
    if (sessionStorage.getItem('boxdesk-e2e-tab')) return;
    localStorage.clear();
    sessionStorage.setItem('boxdesk-e2e-tab', '1');
  } catch {
    // A document without storage (about:blank, an opaque origin): nothing to clear.
  }
}

/** A box name no other test or run uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

/** Creates a box through the API (for tests whose subject is not the form). */
export async function createBoxViaApi(
  ui: UiFixture,
  project: string,
  name: string,
  body: Record<string, unknown> = {},
): Promise<void> {
  ui.track(project, name);
  const res = await ui.api('POST', `/v1/projects/${project}/boxes`, { name, ...body });
  assert.equal(res.status, 201, `creating ${name}: ${await res.text()}`);
  await res.arrayBuffer().catch(() => undefined);
}

/** A download's bytes (saved through Playwright: the shared browser is another process's, its files not ours to read). */
export async function downloaded(download: Download): Promise<Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-download-'));
  try {
    const file = path.join(dir, 'download');
    await download.saveAs(file);
    return fs.readFileSync(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** With BOXDESK_SCREENSHOTS=1, the page in both themes into docs/screenshots/<name>-{light,dark}.png (once `untilGone` is). */
export async function screenshots(page: Page, name: string, options: { untilGone?: Locator } = {}): Promise<void> {
  if (!process.env.BOXDESK_SCREENSHOTS) return;
  // A toast that would cover what the picture is of.
  await options.untilGone?.waitFor({ state: 'hidden' });
  const dir = path.join(ROOT, 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(dir, `${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * Waits for a dialog to close after its action; if it stays open, the failure
 * says what the dialog shows (a problem's detail, a field error) instead of a
 * bare timeout.
 */
export async function dialogCloses(dialog: Locator, timeout = 60_000): Promise<void> {
  try {
    await dialog.waitFor({ state: 'hidden', timeout });
  } catch (err) {
    const shown = await dialog.innerText({ timeout: 1000 }).catch(() => '(unreadable)');
    throw new Error(`the dialog stayed open for ${timeout / 1000} s; it shows: ${shown.replace(/\s+/g, ' ').trim()}`, {
      cause: err,
    });
  }
}
