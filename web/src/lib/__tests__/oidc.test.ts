import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { completeSignIn, discover, getToken, setToken, signOut, startSignIn } from '../auth';
import { loadConfig } from '../config';

const ISSUER = 'https://idp.example.com/oauth2/default';
const DISCOVERY = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/v1/authorize`,
  token_endpoint: `${ISSUER}/v1/token`,
  end_session_endpoint: `${ISSUER}/v1/logout`,
  jwks_uri: `${ISSUER}/v1/keys`,
};

function jwt(claims: object): string {
  const encode = (value: object) => btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${encode({ alg: 'RS256' })}.${encode(claims)}.sig`;
}

function storage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key: string) => items.get(key) ?? null,
    key: (index: number) => [...items.keys()][index] ?? null,
    removeItem: (key: string) => void items.delete(key),
    setItem: (key: string, value: string) => void items.set(key, String(value)),
  };
}

interface Call {
  url: string;
  init?: RequestInit;
}

let calls: Call[];
let assigned: string[];
let href: string;
let discoveryDoc: Record<string, unknown>;
let issuer: string;

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

beforeEach(async () => {
  calls = [];
  assigned = [];
  href = 'https://launchpod.example.com/clusters';
  discoveryDoc = { ...DISCOVERY };
  // A fresh issuer per test: discovery is cached per issuer for the page's life.
  issuer = `${ISSUER}?t=${Math.random()}`.replace('?t=0.', '/t');
  discoveryDoc.issuer = issuer;
  vi.stubGlobal('sessionStorage', storage());
  vi.stubGlobal('window', {
    get location() {
      return { href, origin: new URL(href).origin, pathname: new URL(href).pathname, assign: (url: string) => assigned.push(url) };
    },
    history: { replaceState: (_state: unknown, _title: string, url: string) => (href = new URL(url, href).toString()) },
  });
  vi.stubGlobal('fetch', async (input: string | URL, init?: RequestInit) => {
    const url = String(input);
    calls.push({ url, init });
    if (url.endsWith('/config.json')) {
      return json({
        apiUrl: '/api',
        wsUrl: '/ws',
        auth: { mode: 'oidc', issuer, clientId: 'web-1', redirectUri: 'https://launchpod.example.com/' },
      });
    }
    if (url === `${issuer}/.well-known/openid-configuration`) return json(discoveryDoc);
    if (url === DISCOVERY.token_endpoint) return json({ id_token: jwt({ sub: 'u-1', groups: ['operator'] }), access_token: 'opaque' });
    return json({}, 404);
  });
  await loadConfig();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('sign-in with any OpenID Connect provider', () => {
  it('reads the endpoints from the discovery document', async () => {
    const found = await discover(issuer);
    expect(found).toEqual({
      authorize: DISCOVERY.authorization_endpoint,
      token: DISCOVERY.token_endpoint,
      endSession: DISCOVERY.end_session_endpoint,
    });
  });

  it('refuses a discovery document that names another issuer', async () => {
    discoveryDoc.issuer = 'https://evil.example.com';
    await expect(discover(issuer)).rejects.toThrow(/names issuer/);
  });

  it('sends the browser to the authorization endpoint with a PKCE challenge', async () => {
    await startSignIn();
    expect(assigned).toHaveLength(1);
    const url = new URL(assigned[0]);
    expect(`${url.origin}${url.pathname}`).toBe(DISCOVERY.authorization_endpoint);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('client_id')).toBe('web-1');
    expect(url.searchParams.get('redirect_uri')).toBe('https://launchpod.example.com/');
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toBe('/clusters');
    const verifier = sessionStorage.getItem('launchpod.pkce') ?? '';
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    const expected = btoa(String.fromCharCode(...digest)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    expect(url.searchParams.get('code_challenge')).toBe(expected);
  });

  it('trades the code at the token endpoint and keeps the ID token', async () => {
    await startSignIn();
    const verifier = sessionStorage.getItem('launchpod.pkce');
    href = 'https://launchpod.example.com/?code=abc&state=%2Fclusters';
    expect(await completeSignIn()).toBe(true);
    const trade = calls.find((c) => c.url === DISCOVERY.token_endpoint);
    const body = new URLSearchParams(String(trade?.init?.body));
    expect(Object.fromEntries(body)).toEqual({
      grant_type: 'authorization_code',
      client_id: 'web-1',
      code: 'abc',
      redirect_uri: 'https://launchpod.example.com/',
      code_verifier: verifier,
    });
    expect(getToken()?.split('.')).toHaveLength(3);
    expect(sessionStorage.getItem('launchpod.pkce')).toBeNull();
    expect(href).toBe('https://launchpod.example.com/clusters');
  });

  it('does nothing on a page without a code', async () => {
    expect(await completeSignIn()).toBe(false);
    expect(calls.some((c) => c.url === DISCOVERY.token_endpoint)).toBe(false);
  });

  it('signs out at the end-session endpoint with the ID token as a hint', async () => {
    const token = jwt({ sub: 'u-1' });
    setToken(token);
    signOut();
    await vi.waitFor(() => expect(assigned).toHaveLength(1));
    const url = new URL(assigned[0]);
    expect(`${url.origin}${url.pathname}`).toBe(DISCOVERY.end_session_endpoint);
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe('https://launchpod.example.com/');
    expect(url.searchParams.get('id_token_hint')).toBe(token);
    expect(getToken()).toBeNull();
  });

  it('signs out locally when the provider has no end-session endpoint', async () => {
    delete discoveryDoc.end_session_endpoint;
    setToken(jwt({ sub: 'u-1' }));
    signOut();
    await discover(issuer);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(assigned).toEqual([]);
    expect(getToken()).toBeNull();
  });
});
