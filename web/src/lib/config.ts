// Runtime settings, read from config.json next to the bundle so one build serves every deployment.

export type AuthConfig =
  | { mode: 'token' }
  | {
      mode: 'cognito';
      domain: string; // e.g. launchpod-123.auth.us-east-1.amazoncognito.com (with or without https://)
      clientId: string;
      redirectUri?: string; // defaults to the app's origin
      scopes?: string[];
      // API Gateway's Cognito authorizer accepts the ID token unless scopes are configured on the method.
      tokenUse?: 'id' | 'access';
    }
  | {
      // Any OpenID Connect provider (Okta, Entra ID, Auth0, Keycloak...): its endpoints are read from
      // <issuer>/.well-known/openid-configuration; the ID token is sent to the API.
      mode: 'oidc';
      issuer: string; // e.g. https://example.okta.com/oauth2/default
      clientId: string;
      redirectUri?: string; // defaults to the app's origin
      scopes?: string[]; // defaults to openid email profile; add e.g. "groups" if your provider needs it
    };

export interface AppConfig {
  apiUrl: string;
  wsUrl: string;
  auth: AuthConfig;
}

const DEFAULTS: AppConfig = { apiUrl: '/api', wsUrl: '/ws', auth: { mode: 'token' } };

let current: AppConfig = DEFAULTS;

export async function loadConfig(): Promise<AppConfig> {
  const url = new URL('config.json', new URL(import.meta.env.BASE_URL, window.location.origin));
  try {
    const response = await fetch(url, { cache: 'no-store' });
    if (response.ok) current = { ...DEFAULTS, ...((await response.json()) as Partial<AppConfig>) };
  } catch {
    // No config.json (e.g. `vite dev` without one): the sandbox defaults apply.
  }
  return current;
}

export function config(): AppConfig {
  return current;
}

/** Absolute ws(s):// URL; a relative wsUrl is resolved against the page's origin. */
export function websocketUrl(token: string): string {
  const base = new URL(current.wsUrl, window.location.href);
  if (base.protocol === 'http:') base.protocol = 'ws:';
  if (base.protocol === 'https:') base.protocol = 'wss:';
  base.searchParams.set('token', token);
  return base.toString();
}
