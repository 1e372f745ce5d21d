import type { Locator } from 'playwright-core';

/** The text of the error shown at a field, found through the field's own description (null when the field is valid). */
export function errorAtField(field: Locator): Promise<string | null> {
  return field.evaluate((el) => {
    const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    const texts = ids
      .map((id) => document.getElementById(id))
      .filter((n) => n?.getAttribute('role') === 'alert' || n?.id.endsWith('error'))
      .map((n) => n!.textContent ?? '');
    return el.getAttribute('aria-invalid') === 'true' ? texts.join(' ') || '' : null;
  });
}
