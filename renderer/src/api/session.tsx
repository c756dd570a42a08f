import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, makeFetcher, type Fetcher } from './client';
import { currentSession, logout } from './accounts';
import type { UserJson } from '../../../daemon/src/contract/wire/accounts';
import { queryKeys } from './query-keys';

export interface Session {
  /** Still asking the daemon whether the browser has a session. */
  checking: boolean;
  signedIn: boolean;
  /** The signed-in user's name. */
  username: string | null;
  admin: boolean;
  /**
   * The session ended while in use (revoked elsewhere, expired, the password changed): the UI says so until the next
   * sign-in.
   */
  ended: boolean;
  api: Fetcher;
  /** After a successful sign-in (the daemon has set the session cookie). */
  signIn(user: UserJson): void;
  /** Ends the session on the daemon (revokes its token, clears the cookie), then here. */
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** Shorthand for the fetch helper. */
export const useApi = (): Fetcher => useSession().api;

const LEGACY_TOKEN_KEY = 'boxyard.token';

/**
 * The session lives in an httpOnly cookie the page cannot read: who is signed in is asked of the
 * daemon (`GET /api/boxyard/session`), and any 401 means the session has ended. Without one, the
 * UI shows the public catalogue (app.tsx).
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  // Before the cookie session, the UI kept its API token in localStorage: leave no secret there.
  useEffect(() => {
    localStorage.removeItem(LEGACY_TOKEN_KEY);
  }, []);
  const endLocally = useCallback(() => {
    // A visitor who is not signed in has no session to end: the public pages stay as they are.
    if (queryClient.getQueryData(queryKeys.session) == null) return;
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== queryKeys.session[0] });
    queryClient.setQueryData(queryKeys.session, null);
  }, [queryClient]);
  const [ended, setEnded] = useState(false);
  // A 401 while signed in: the daemon ended the session, not the user (signing out answers 204).
  const sessionEnded = useCallback(() => {
    if (queryClient.getQueryData(queryKeys.session) != null) setEnded(true);
    endLocally();
  }, [queryClient, endLocally]);
  const api = useMemo(() => makeFetcher(sessionEnded), [sessionEnded]);
  const session = useQuery({
    queryKey: queryKeys.session,
    queryFn: () => currentSession(api),
    staleTime: Infinity,
    retry: (n, e) => !(e instanceof ApiError && e.status < 500) && n < 2,
  });
  const signIn = useCallback(
    (user: UserJson) => {
      setEnded(false);
      queryClient.setQueryData(queryKeys.session, user);
    },
    [queryClient],
  );
  const signOut = useCallback(async () => {
    // Sign out here even if the daemon cannot be told (it is away, or the session already ended).
    await logout(api).catch(() => undefined);
    endLocally();
  }, [api, endLocally]);
  const user = session.data ?? null;
  const value = useMemo<Session>(
    () => ({
      checking: session.isPending,
      signedIn: user !== null,
      username: user?.username ?? null,
      admin: user?.admin ?? false,
      ended,
      api,
      signIn,
      signOut,
    }),
    [session.isPending, user, ended, api, signIn, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
