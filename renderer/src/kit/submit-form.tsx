import type { ReactNode } from 'react';

/**
 * A form the window sends itself: no browser validation (the fields show the schema's rules), no page
 * load; Enter or its submit button calls `onSubmit`. `label` names it for assistive technology and tests.
 */
export function SubmitForm({ label, onSubmit, children }: { label: string; onSubmit(): void; children: ReactNode }) {
  return (
    <form
      aria-label={label}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}
