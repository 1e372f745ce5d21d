import { useState, type ChangeEvent } from 'react';
import { dnsLabelError } from './validators';

/**
 * An optional name (one is made up when it is empty), checked with the DNS-label rule as it is typed:
 * its value, its error (null while it may be sent) and the props that bind a TextInput to it.
 */
export function useOptionalName() {
  const [name, setName] = useState('');
  const error = name === '' ? null : dnsLabelError(name);
  const inputProps = {
    value: name,
    onChange: (e: ChangeEvent<HTMLInputElement>) => setName(e.currentTarget.value),
    error,
    errorProps: { role: 'alert' },
    autoComplete: 'off',
  };
  return { name, setName, error, inputProps };
}
