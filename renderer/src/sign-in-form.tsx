import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { createClient, describeError } from './connection';

/** Checks a pasted token against the API before keeping it. */
export function SignInForm({ onSignedIn }: { onSignedIn: (token: string) => void }) {
  const [value, setValue] = useState('');
  const queryClient = useQueryClient();
  const fieldId = useId();
  const errorId = useId();
  const signIn = useMutation({
    mutationFn: (token: string) => createClient(token).listBases(),
    onSuccess: (bases, token) => {
      queryClient.setQueryData(['bases', token], bases);
      onSignedIn(token);
    },
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const token = value.trim();
    if (token) signIn.mutate(token);
  };

  return (
    <section aria-labelledby="sign-in-heading" className="panel">
      <h2 id="sign-in-heading">Sign in</h2>
      <form onSubmit={submit} noValidate>
        <label htmlFor={fieldId}>Access token</label>
        <p className="hint">
          Paste the token from the <code>token</code> file in the core's data directory.
        </p>
        <div className="field-row">
          <input
            id={fieldId}
            type="password"
            autoComplete="off"
            spellCheck={false}
            required
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={signIn.isError}
            aria-describedby={signIn.isError ? errorId : undefined}
          />
          <button type="submit" disabled={signIn.isPending || value.trim() === ''}>
            {signIn.isPending ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
        {signIn.isError && (
          <p id={errorId} role="alert" className="error">
            {describeError(signIn.error)}
          </p>
        )}
      </form>
    </section>
  );
}
