/**
 * The signed-in user (sign-in contract, issue 15): `GET /rest-api/session/` tells whether the
 * browser's cookie is a session, `POST` signs in, `DELETE` signs out. The CSRF token it answers is
 * handed to the API client for every write. useSession() gives the user and the two actions.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, API, del, get, post, setCsrfToken, whenUnauthorized } from './client.ts';
import type { SessionUser } from './types.ts';

const SESSION = `${API}/session/`;
const sessionKey = ['session'] as const;

interface SessionContext {
  /** undefined while the first read runs; null when signed out. */
  user: SessionUser | null | undefined;
  /** Why the session could not be read (the server down), while `user` is undefined. */
  error: Error | null;
  retry(): void;
  signIn(username: string, password: string): Promise<void>;
  signOut(): Promise<void>;
}

const Context = createContext<SessionContext | undefined>(undefined);

async function readSession(): Promise<SessionUser | null> {
  try {
    return await get<SessionUser>(SESSION);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const { data: user, error, refetch } = useQuery({ queryKey: sessionKey, queryFn: readSession, staleTime: Infinity, retry: 1 });

  useEffect(() => setCsrfToken(user?.csrf_token), [user]);
  useEffect(() => {
    // Any API answer of 401 means the session is gone: back to the sign-in form, caches dropped.
    whenUnauthorized(() => {
      client.setQueryData(sessionKey, null);
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    });
  }, [client]);

  const signIn = useCallback(
    async (username: string, password: string) => {
      const signedIn = await post<SessionUser>(SESSION, { username, password });
      setCsrfToken(signedIn.csrf_token);
      client.setQueryData(sessionKey, signedIn);
    },
    [client],
  );
  const signOut = useCallback(async () => {
    try {
      await del(SESSION);
    } finally {
      setCsrfToken(undefined);
      client.setQueryData(sessionKey, null);
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    }
  }, [client]);

  const value = useMemo(() => ({ user, error, retry: () => void refetch(), signIn, signOut }), [user, error, refetch, signIn, signOut]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

export function useSession(): SessionContext {
  const ctx = useContext(Context);
  if (!ctx) throw new Error('useSession outside SessionProvider');
  return ctx;
}

/** The signed-in user, for pages rendered only when signed in. */
export function useUser(): SessionUser {
  const { user } = useSession();
  if (!user) throw new Error('useUser while signed out');
  return user;
}
