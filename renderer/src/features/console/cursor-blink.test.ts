import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLINK_AFTER_MS, BLINK_IDLE_MS, blinkWhileActive, type BlinkingTerminal } from './cursor-blink';

/** A terminal whose keys and output the test sends, counting how often the blink option is set. */
function terminal() {
  const listeners: (() => void)[] = [];
  let blink = false;
  const term = {
    sets: 0,
    options: {
      get cursorBlink() {
        return blink;
      },
      set cursorBlink(on: boolean) {
        term.sets++;
        blink = on;
      },
    },
    onData: (l: () => void) => (listeners.push(l), { dispose: () => listeners.splice(listeners.indexOf(l), 1) }),
    onWriteParsed: (l: () => void) => (listeners.push(l), { dispose: () => listeners.splice(listeners.indexOf(l), 1) }),
    use: () => listeners.forEach((l) => l()),
    listeners,
  } satisfies BlinkingTerminal & Record<string, unknown>;
  return term;
}

test('the cursor is lit while keys and output come, blinks once they pause, and is lit again after 10 s idle', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const term = terminal();
  const stop = blinkWhileActive(term, () => false);
  assert.equal(term.options.cursorBlink, false);
  for (let i = 0; i < 20; i++) {
    t.mock.timers.tick(BLINK_AFTER_MS - 1);
    term.use();
    assert.equal(term.options.cursorBlink, false, 'lit while typed into');
  }
  assert.equal(term.sets, 0, 'the option is set only when it changes (each set redraws the row)');
  t.mock.timers.tick(BLINK_AFTER_MS);
  assert.equal(term.options.cursorBlink, true, 'blinks once the use pauses');
  t.mock.timers.tick(BLINK_IDLE_MS - 1);
  assert.equal(term.options.cursorBlink, true);
  t.mock.timers.tick(1);
  assert.equal(term.options.cursorBlink, false, 'lit again after 10 s idle');
  term.use();
  assert.equal(term.options.cursorBlink, false);
  t.mock.timers.tick(BLINK_AFTER_MS);
  assert.equal(term.options.cursorBlink, true, 'a key after the idle wakes it');
  stop();
  assert.equal(term.listeners.length, 0);
  t.mock.timers.tick(BLINK_IDLE_MS);
  assert.equal(term.options.cursorBlink, true, 'the undo leaves the terminal alone');
});

test('for a user who asks for less motion the cursor never blinks', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const term = terminal();
  let less = false;
  blinkWhileActive(term, () => less);
  t.mock.timers.tick(BLINK_AFTER_MS);
  assert.equal(term.options.cursorBlink, true);
  less = true;
  term.use();
  assert.equal(term.options.cursorBlink, false, 'stops at once');
  t.mock.timers.tick(BLINK_IDLE_MS * 2);
  assert.equal(term.options.cursorBlink, false);
});
