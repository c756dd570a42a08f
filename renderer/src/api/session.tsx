import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, makeFetcher, type Fetcher } from './client';

const TOKEN_KEY = 'boxyard.token';

export interface Session {
  token: string | null;
  /** The signed-in user's name, once the token has been checked. */
  username: string | null;
  admin: boolean;
  api: Fetcher;
  signIn(token: string): void;
  signOut(): void;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** Shorthand for the fetch helper bound to the current token. */
export const useApi = (): Fetcher => useSession().api;

interface SelfUser { user: { username: string; admin: boolean } }

export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState<string | null>(() => localStorage.getItem(TOKEN_KEY));
  const queryClient = useQueryClient();
  const signOut = useCallback(() => {
    localStorage.removeItem(TOKEN_KEY);
    setToken(null);
    queryClient.clear();
  }, [queryClient]);
  const signIn = useCallback((t: string) => {
    localStorage.setItem(TOKEN_KEY, t);
    setToken(t);
  }, []);
  const api = useMemo(() => makeFetcher(token, signOut), [token, signOut]);
  const self = useQuery({
    queryKey: ['self', token],
    queryFn: () => api<SelfUser>('/api/boxyard/user'),
    enabled: token !== null,
    retry: (n, e) => !(e instanceof ApiError && e.status === 401) && n < 2,
  });
  const value = useMemo<Session>(() => ({
    token,
    username: self.data?.user.username ?? null,
    admin: self.data?.user.admin ?? false,
    api,
    signIn,
    signOut,
  }), [token, self.data, api, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
