import { createContext, useContext, useMemo, type ReactNode } from 'react';
import type { BoxdeskClient } from '../../../shared/client';
import { createClient } from './session';

interface ApiSession {
  client: BoxdeskClient;
  token: string;
  signOut(message?: string): void;
}

const ApiContext = createContext<ApiSession | null>(null);

/** The one client of the signed-in window; every hook in api/ reads it from here. */
export function ApiProvider({
  token,
  signOut,
  children,
}: {
  token: string;
  signOut(message?: string): void;
  children: ReactNode;
}) {
  const value = useMemo(() => ({ client: createClient(token), token, signOut }), [token, signOut]);
  return <ApiContext.Provider value={value}>{children}</ApiContext.Provider>;
}

export function useApi(): ApiSession {
  const session = useContext(ApiContext);
  if (!session) throw new Error('useApi outside ApiProvider');
  return session;
}

export function useClient(): BoxdeskClient {
  return useApi().client;
}

/** For the routes that need no token (/version, /healthz). */
export const anonymousClient = createClient();
