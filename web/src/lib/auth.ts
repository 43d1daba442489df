// Who the user is: the sandbox token (asked once, kept for the browser session), Cognito's hosted UI or
// any OpenID Connect provider (authorization code + PKCE, a public client without a secret).

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

// ---- Hosted sign-in: Cognito's hosted UI or any OpenID Connect provider --------------------------

type Cognito = Extract<AuthConfig, { mode: 'cognito' }>;
type Oidc = Extract<AuthConfig, { mode: 'oidc' }>;
type HostedAuth = Cognito | Oidc;

/** Where the browser signs in, trades the code and signs out. */
export interface Endpoints {
  authorize: string;
  token: string;
  endSession: string | null;
}

function cognitoBase(auth: Cognito): string {
  return auth.domain.startsWith('http') ? auth.domain.replace(/\/$/, '') : `https://${auth.domain}`;
}

function redirectUri(auth: HostedAuth): string {
  return auth.redirectUri ?? `${window.location.origin}/`;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const discovered = new Map<string, Promise<Endpoints>>();

/** The provider's endpoints from <issuer>/.well-known/openid-configuration (read once per page). */
export function discover(issuer: string): Promise<Endpoints> {
  const key = issuer.replace(/\/$/, '');
  let found = discovered.get(key);
  if (!found) {
    found = (async () => {
      const response = await fetch(`${key}/.well-known/openid-configuration`, { headers: { Accept: 'application/json' } });
      if (!response.ok) throw new Error(`The identity provider's discovery document answered ${response.status}.`);
      const doc = (await response.json()) as Record<string, unknown>;
      if (typeof doc.issuer === 'string' && doc.issuer.replace(/\/$/, '') !== key) {
        throw new Error(`The discovery document names issuer ${doc.issuer}, not ${issuer}.`);
      }
      if (typeof doc.authorization_endpoint !== 'string' || typeof doc.token_endpoint !== 'string') {
        throw new Error('The discovery document has no authorization_endpoint or token_endpoint.');
      }
      return {
        authorize: doc.authorization_endpoint,
        token: doc.token_endpoint,
        endSession: typeof doc.end_session_endpoint === 'string' ? doc.end_session_endpoint : null,
      };
    })();
    found.catch(() => discovered.delete(key)); // a failed discovery is retried on the next sign-in
    discovered.set(key, found);
  }
  return found;
}

export async function endpoints(auth: HostedAuth): Promise<Endpoints> {
  if (auth.mode === 'oidc') return discover(auth.issuer);
  const base = cognitoBase(auth);
  return { authorize: `${base}/oauth2/authorize`, token: `${base}/oauth2/token`, endSession: `${base}/logout` };
}

function hostedAuth(): HostedAuth | null {
  const auth = config().auth;
  return auth.mode === 'cognito' || auth.mode === 'oidc' ? auth : null;
}

export async function startSignIn(): Promise<void> {
  const auth = hostedAuth();
  if (!auth) return;
  const { authorize } = await endpoints(auth);
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
  const url = new URL(authorize);
  params.forEach((value, name) => url.searchParams.set(name, value));
  window.location.assign(url.toString());
}

/** On return from the provider: trade the code for tokens. Returns true when a sign-in completed. */
export async function completeSignIn(): Promise<boolean> {
  const auth = hostedAuth();
  if (!auth) return false;
  const url = new URL(window.location.href);
  const code = url.searchParams.get('code');
  const verifier = sessionStorage.getItem(VERIFIER_KEY);
  if (!code || !verifier) return false;
  const { token } = await endpoints(auth);
  const response = await fetch(token, {
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
  // The backend verifies ID tokens (their audience is the client); Cognito may be told to send access tokens.
  const use = auth.mode === 'cognito' ? auth.tokenUse : 'id';
  setToken((use === 'access' ? tokens.access_token : tokens.id_token) ?? null);
  return true;
}

export function signOut(): void {
  const previous = getToken();
  setToken(null);
  const auth = hostedAuth();
  if (!auth) return;
  if (auth.mode === 'cognito') {
    const params = new URLSearchParams({ client_id: auth.clientId, logout_uri: redirectUri(auth) });
    window.location.assign(`${cognitoBase(auth)}/logout?${params}`);
    return;
  }
  void discover(auth.issuer)
    .then(({ endSession }) => {
      if (!endSession) return; // the provider offers no RP-initiated logout: the local sign-out stands
      const url = new URL(endSession);
      url.searchParams.set('client_id', auth.clientId);
      url.searchParams.set('post_logout_redirect_uri', redirectUri(auth));
      if (previous && jwtClaims(previous)) url.searchParams.set('id_token_hint', previous);
      window.location.assign(url.toString());
    })
    .catch(() => undefined);
}
