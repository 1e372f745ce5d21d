import type { BrowserServer } from 'playwright-core';

export const CHROMIUM: string;
export const CHROMIUM_ARGS: string[];
export const SHARED_EXTRA_ARGS: string[];
export const SHARED_BROWSER_ENV: string;
export function launchSharedChromium(): Promise<BrowserServer>;
