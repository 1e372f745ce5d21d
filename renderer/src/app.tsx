import { useState } from 'react';
import { BasesTable } from './bases-table';
import { storeToken, storedToken } from './connection';
import { SignInForm } from './sign-in-form';
import { StatusPanel } from './status-panel';

export function App() {
  const [token, setToken] = useState<string | null>(storedToken);

  const signIn = (value: string) => {
    storeToken(value);
    setToken(value);
  };
  const signOut = () => {
    storeToken(null);
    setToken(null);
  };

  return (
    <>
      <header className="app-header">
        <h1>Boxdesk</h1>
        {token !== null && (
          <button type="button" className="secondary" onClick={signOut}>
            Sign out
          </button>
        )}
      </header>
      <main>
        <StatusPanel />
        {token === null ? <SignInForm onSignedIn={signIn} /> : <BasesTable token={token} />}
      </main>
    </>
  );
}
