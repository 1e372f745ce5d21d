import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { HashRouter } from 'react-router';
import { ApiProvider } from '../api/client-context';
import { isUnauthorized, onUnauthorized, reportUnauthorized, storeToken, storedToken } from '../api/session';
import { FEATURES } from './features';
import { AppLayout } from './layout';
import { RegistryContext, buildRegistry } from './registry';
import { SignInPage } from './sign-in-page';
import { cssVariablesResolver, theme } from './theme';

function makeQueryClient(): QueryClient {
  const onError = (err: unknown) => {
    if (isUnauthorized(err)) reportUnauthorized();
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
  });
}

const registry = buildRegistry(FEATURES);

const REVOKED = 'The core no longer accepts this token (it was revoked or is wrong). Sign in again.';

export function App() {
  const [queryClient] = useState(makeQueryClient);
  const [token, setToken] = useState<string | null>(storedToken);
  const [message, setMessage] = useState<string | null>(null);

  const signIn = useCallback((value: string) => {
    storeToken(value);
    setMessage(null);
    setToken(value);
  }, []);
  const signOut = useCallback(
    (why?: string) => {
      storeToken(null);
      queryClient.clear();
      setMessage(why ?? null);
      setToken(null);
    },
    [queryClient],
  );
  useEffect(() => onUnauthorized(() => signOut(REVOKED)), [signOut]);

  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <ModalsProvider>
          <Notifications position="bottom-right" />
          <HashRouter>
            {token === null ? (
              <SignInPage onSignedIn={signIn} message={message} />
            ) : (
              <ApiProvider token={token} signOut={signOut}>
                <RegistryContext.Provider value={registry}>
                  <AppLayout />
                </RegistryContext.Provider>
              </ApiProvider>
            )}
          </HashRouter>
        </ModalsProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
