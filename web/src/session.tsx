// The signed-in user, the active cluster (a user preference, not a workflow) and page notifications.

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { FlashbarProps } from '@cloudscape-design/components/flashbar';
import { useLocation } from 'react-router-dom';

import { api, ApiError } from './lib/api';
import { getToken, identityFromToken, onTokenChange, type Identity } from './lib/auth';
import { loadSchemas } from './lib/schema';
import type { Role } from './lib/types';

const ACTIVE_KEY = 'launchpod.activeCluster';

interface Session {
  token: string | null;
  identity: Identity;
  activeCluster: string | null;
  setActiveCluster: (name: string | null) => void;
  flashes: FlashbarProps.MessageDefinition[];
  /** Show a notification; with `path`, on that page only (e.g. the page being navigated to). */
  notify: (flash: Omit<FlashbarProps.MessageDefinition, 'id' | 'onDismiss' | 'dismissible'> & { id?: string; path?: string }) => void;
  can: (needed: Role) => boolean;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setTokenState] = useState<string | null>(getToken());
  const [identity, setIdentity] = useState<Identity>({ subject: null, role: null });
  const [activeCluster, setActive] = useState<string | null>(localStorage.getItem(ACTIVE_KEY));
  const [allFlashes, setFlashes] = useState<(FlashbarProps.MessageDefinition & { path?: string })[]>([]);
  const location = useLocation();
  // Notifications belong to the page they were shown on; leaving it clears them, as in the AWS console.
  useEffect(() => {
    setFlashes((current) => current.filter((item) => item.path === location.pathname));
  }, [location.pathname]);
  const flashes = useMemo(
    () => allFlashes.filter((item) => !item.path || item.path === location.pathname),
    [allFlashes, location.pathname],
  );

  useEffect(() => onTokenChange(() => setTokenState(getToken())), []);

  // The role comes from GET /api/me when the API offers it, else from the token's claims (a JWT).
  useEffect(() => {
    if (!token) {
      setIdentity({ subject: null, role: null });
      return;
    }
    let cancelled = false;
    const fromToken = identityFromToken(token);
    setIdentity(fromToken);
    // Asked only when the API documents the route, so a missing one does not put a 404 in the console.
    void loadSchemas()
      .then((doc) => (Object.keys(doc.paths ?? {}).some((path) => /\/me$/.test(path)) ? api.whoami() : null))
      .then((answer) => {
        if (!cancelled && answer?.data?.role) {
          setIdentity({ subject: answer.data.subject ?? fromToken.subject, role: answer.data.role });
        }
      })
      .catch((error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
      });
    return () => {
      cancelled = true;
    };
  }, [token]);

  const remember = useCallback((name: string | null) => {
    if (name) localStorage.setItem(ACTIVE_KEY, name);
    else localStorage.removeItem(ACTIVE_KEY);
    setActive(name);
  }, []);

  // The server's preference wins over this browser's copy: an agent may have changed it.
  useEffect(() => {
    if (!token) return;
    let cancelled = false;
    api
      .preferences()
      .then((answer) => {
        if (!cancelled) remember(answer.data.activeCluster ?? null);
      })
      .catch((error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
      });
    return () => {
      cancelled = true;
    };
  }, [token, remember]);

  const setActiveCluster = useCallback(
    (name: string | null) => {
      remember(name);
      api.setActiveCluster(name).catch((error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
      });
    },
    [remember],
  );

  const notify = useCallback<Session['notify']>((flash) => {
    const id = flash.id ?? `${Date.now()}-${Math.random()}`;
    const path = flash.path ?? window.location.pathname;
    setFlashes((current) => [
      ...current.filter((item) => item.id !== id),
      { ...flash, path, id, dismissible: true, dismissLabel: 'Dismiss', onDismiss: () => setFlashes((all) => all.filter((item) => item.id !== id)) },
    ]);
  }, []);

  const can = useCallback(
    (needed: Role) => (identity.role ? RANK[identity.role] >= RANK[needed] : true),
    [identity.role],
  );

  const value = useMemo(
    () => ({ token, identity, activeCluster, setActiveCluster, flashes, notify, can }),
    [token, identity, activeCluster, setActiveCluster, flashes, notify, can],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
