// Who the user is: the sandbox token (asked once, kept for the browser session) or Cognito's hosted UI
// (authorization code + PKCE, a public client without a secret).

import { config, type AuthConfig } from './config';
import type { Role } from './types';

const TOKEN_KEY = 'launchpod.token';
const VERIFIER_KEY = 'launchpod.pkce';

type Listener = () => void;
const listeners = new Set<Listener>();

export function onTokenChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  listeners.forEach((listener) => listener());
}

export interface Identity {
  subject: string | null;
  role: Role | null;
}

const ROLES: Role[] = ['admin', 'operator', 'viewer'];

/** Claims of a JWT, or null for an opaque token. Only read for display: the backend checks every call. */
export function jwtClaims(token: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const json = atob(parts[1].replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(json) as Record<string, unknown>;
  } catch {
    return null;
  }
}

// Sandbox tokens are opaque but name their user: lp-<admin|operator|viewer>-<random> (sandbox/auth.py).
const SANDBOX_TOKEN = /^lp-(admin|operator|viewer)-/;

export function identityFromToken(token: string): Identity {
  const claims = jwtClaims(token);
  if (!claims) {
    const user = SANDBOX_TOKEN.exec(token)?.[1] as Role | undefined;
    return { subject: user ?? null, role: user ?? null };
  }
  const groups = [claims['cognito:groups'], claims['groups'], claims['role'], claims['custom:role']]
    .flat()
    .flatMap((value) => (typeof value === 'string' ? value.split(/[\s,]+/) : []));
  const role = ROLES.find((candidate) => groups.includes(candidate)) ?? null;
  const subject = (claims['email'] ?? claims['cognito:username'] ?? claims['username'] ?? claims['sub']) as
    | string
    | undefined;
  return { subject: subject ?? null, role };
}

// ---- Cognito hosted UI -------------------------------------------------------------------------

type Cognito = Extract<AuthConfig, { mode: 'cognito' }>;

function cognitoBase(auth: Cognito): string {
  return auth.domain.startsWith('http') ? auth.domain.replace(/\/$/, '') : `https://${auth.domain}`;
}

function redirectUri(auth: Cognito): string {
  return auth.redirectUri ?? `${window.location.origin}/`;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export async function startCognitoSignIn(): Promise<void> {
  const auth = config().auth as Cognito;
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  sessionStorage.setItem(VERIFIER_KEY, verifier);
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: auth.clientId,
    redirect_uri: redirectUri(auth),
    scope: (auth.scopes ?? ['openid', 'email', 'profile']).join(' '),
    code_challenge_method: 'S256',
    code_challenge: challenge,
    state: window.location.pathname,
  });
  window.location.assign(`${cognitoBase(auth)}/oauth2/authorize?${params}`);
}

/** On return from the hosted UI: trade the code for tokens. Returns true when a sign-in completed. */
export async function completeCognitoSignIn(): Promise<boolean> {
  const auth = config().auth;
  if (auth.mode !== 'cognito') return false;
  const url = new URL(window.location.href);
  const code = url.searchParams.get('code');
  const verifier = sessionStorage.getItem(VERIFIER_KEY);
  if (!code || !verifier) return false;
  const response = await fetch(`${cognitoBase(auth)}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: auth.clientId,
      code,
      redirect_uri: redirectUri(auth),
      code_verifier: verifier,
    }),
  });
  sessionStorage.removeItem(VERIFIER_KEY);
  const state = url.searchParams.get('state') ?? '/';
  window.history.replaceState(null, '', state.startsWith('/') ? state : '/');
  if (!response.ok) return false;
  const tokens = (await response.json()) as { id_token?: string; access_token?: string };
  setToken((auth.tokenUse === 'access' ? tokens.access_token : tokens.id_token) ?? null);
  return true;
}

export function signOut(): void {
  setToken(null);
  const auth = config().auth;
  if (auth.mode === 'cognito') {
    const params = new URLSearchParams({ client_id: auth.clientId, logout_uri: redirectUri(auth) });
    window.location.assign(`${cognitoBase(auth)}/logout?${params}`);
  }
}
