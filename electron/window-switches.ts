/**
 * Chromium features the window turns off, on Electron's command line (main.ts). The bench's
 * headless Chromium, the window's stand-in where Electron cannot run, takes the same switch.
 *
 * DeferRendererTasksAfterInput: after a key press, Chromium holds the page's other tasks, the
 * console socket's messages among them, until it has drawn the next frame. A keystroke's echo
 * reached the page up to a frame late (bench, headless Chromium 156: echo bytes in the page
 * p50 14.4 → 2.0 ms, echo painted 30.0 → 12.9 ms).
 */
export const WINDOW_DISABLED_FEATURES = ['DeferRendererTasksAfterInput'];

/** The same as a command-line argument. */
export const windowDisabledFeaturesArg = (): string => `--disable-features=${WINDOW_DISABLED_FEATURES.join(',')}`;
