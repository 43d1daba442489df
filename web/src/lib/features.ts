// Managed features in the request's shape: what the Features tab starts from and compares edits with, so
// only the features the user changed are sent (lib/diff.ts).

import type { FeatureView } from './types';

export type Toggles = Record<string, Record<string, unknown>>;

export const DEFAULT_MEMORY_PERCENTAGE = 20;

/** Each feature's real state as the PATCH body would say it (memoryPercentage only while it is on). */
export function togglesOf(features: FeatureView[]): Toggles {
  const out: Toggles = {};
  // A feature this route only reads (changedWith) is not part of the PATCH body.
  for (const f of features) if (!f.changedWith) out[f.name] = toggle(f, f.enabled);
  return out;
}

/** The body of one feature turned on or off (tiered checkpointing keeps its memory share when on). */
export function toggle(feature: FeatureView, enabled: boolean): Record<string, unknown> {
  if (feature.name === 'tieredCheckpointing' && enabled) {
    return { enabled: true, memoryPercentage: Number(feature.settings?.memoryPercentage ?? DEFAULT_MEMORY_PERCENTAGE) };
  }
  return { enabled };
}

/** Where the add-on's dashboards are: the cluster dashboard in its Amazon Managed Grafana workspace, when it was
 * given one (the view's settings.grafanaUrl, as the HyperPod CLI builds it); null without one. */
export function grafanaUrlOf(feature: FeatureView): string | null {
  const url = feature.settings?.grafanaUrl;
  return typeof url === 'string' && url.startsWith('https://') ? url : null;
}

/** HyperPod observability turned on with an existing Amazon Managed Grafana workspace for its dashboards; a blank
 * ARN is left out (the add-on then writes to Prometheus only). */
export function withGrafana(arn: string): Record<string, unknown> {
  const trimmed = arn.trim();
  return trimmed ? { enabled: true, grafanaWorkspaceArn: trimmed } : { enabled: true };
}

export type GrafanaSignIn = 'SAML' | 'AWS_SSO';

/** HyperPod observability turned on with an Amazon Managed Grafana workspace Launchpod creates (deleted again when
 * the feature is turned off): people sign in with SAML (any identity provider; set it in the workspace afterwards)
 * or IAM Identity Center (AWS_SSO, which the account must have enabled); null: no workspace is created. */
export function withNewGrafana(signIn: GrafanaSignIn | null): Record<string, unknown> {
  return signIn ? { enabled: true, createGrafanaWorkspace: true, grafanaAuthentication: signIn } : { enabled: true };
}

/** How people sign in to the Grafana workspace Launchpod made, and what is left to set up (settings.grafanaSignIn). */
export function grafanaSignInOf(feature: FeatureView): string | null {
  const found = feature.settings?.grafanaSignIn;
  return typeof found === 'string' && found ? found : null;
}
