import { describe, expect, it } from 'vitest';

import { changedFields } from '../diff';
import { grafanaSignInOf, grafanaUrlOf, toggle, togglesOf, withGrafana, withNewGrafana } from '../features';
import type { FeatureView } from '../types';

function feature(name: FeatureView['name'], enabled: boolean, settings: Record<string, number | string> = {}): FeatureView {
  return { name, title: name, enabled, status: enabled ? 'ENABLED' : 'DISABLED', settings, objects: [], dependsOn: [], blockedBy: [], version: null, note: null, changedWith: null };
}

describe('features as the PATCH body says them', () => {
  const real = [feature('trainingOperator', false), feature('tieredCheckpointing', true, { memoryPercentage: 30 })];

  it('starts from the real state, memoryPercentage only while tiered checkpointing is on', () => {
    expect(togglesOf(real)).toEqual({
      trainingOperator: { enabled: false },
      tieredCheckpointing: { enabled: true, memoryPercentage: 30 },
    });
  });

  it('sends only the feature the user changed', () => {
    const original = togglesOf(real);
    const edited = { ...original, trainingOperator: toggle(real[0], true) };
    expect(changedFields(original, edited)).toEqual({ trainingOperator: { enabled: true } });
  });

  it('turning tiered checkpointing off sends no memory share (the API refuses one)', () => {
    const original = togglesOf(real);
    const edited = { ...original, tieredCheckpointing: toggle(real[1], false) };
    expect(changedFields(original, edited)).toEqual({ tieredCheckpointing: { enabled: false } });
  });

  it('sends nothing when the toggles are back where they were', () => {
    const original = togglesOf(real);
    const edited = { ...original, trainingOperator: toggle(real[0], false) };
    expect(changedFields(original, edited)).toEqual({});
  });

  it('leaves out what this route only reads (autoscaling changes with the instance groups)', () => {
    const readOnly = { ...feature('autoscaling', true), changedWith: 'the instance-groups routes' };
    expect(Object.keys(togglesOf([...real, readOnly]))).toEqual(['trainingOperator', 'tieredCheckpointing']);
  });

  it('a newly enabled tiered checkpointing takes the default share', () => {
    expect(toggle(feature('tieredCheckpointing', false), true)).toEqual({ enabled: true, memoryPercentage: 20 });
  });

  it('HyperPod observability turned on with a Grafana workspace sends its ARN, and none when left blank', () => {
    const original = togglesOf([feature('hyperpodObservability', false)]);
    const arn = 'arn:aws:grafana:us-east-1:111122223333:/workspaces/g-abcd1234';
    expect(changedFields(original, { hyperpodObservability: withGrafana(` ${arn} `) })).toEqual({
      hyperpodObservability: { enabled: true, grafanaWorkspaceArn: arn },
    });
    expect(changedFields(original, { hyperpodObservability: withGrafana('  ') })).toEqual({
      hyperpodObservability: { enabled: true },
    });
  });

  it('the Grafana dashboard link is the view\'s https URL, none without a workspace', () => {
    const url = 'https://g-abcd1234.grafana-workspace.us-east-1.amazonaws.com/d/aws-sm-hp-observability-cluster-v1_0';
    expect(grafanaUrlOf(feature('hyperpodObservability', true, { grafanaUrl: url }))).toBe(url);
    expect(grafanaUrlOf(feature('hyperpodObservability', true, { prometheusEndpoint: 'https://aps' }))).toBeNull();
  });

  it('HyperPod observability turned on with a Grafana workspace Launchpod creates sends how people sign in', () => {
    const original = togglesOf([feature('hyperpodObservability', false)]);
    expect(changedFields(original, { hyperpodObservability: withNewGrafana('SAML') })).toEqual({
      hyperpodObservability: { enabled: true, createGrafanaWorkspace: true, grafanaAuthentication: 'SAML' },
    });
    expect(changedFields(original, { hyperpodObservability: withNewGrafana('AWS_SSO') })).toEqual({
      hyperpodObservability: { enabled: true, createGrafanaWorkspace: true, grafanaAuthentication: 'AWS_SSO' },
    });
    expect(changedFields(original, { hyperpodObservability: withNewGrafana(null) })).toEqual({
      hyperpodObservability: { enabled: true },
    });
  });

  it("shows how people sign in to the Grafana workspace Launchpod made, and nothing without one", () => {
    const saml = 'SAML (not configured: give the workspace your identity provider metadata)';
    expect(grafanaSignInOf(feature('hyperpodObservability', true, { grafanaSignIn: saml }))).toBe(saml);
    expect(grafanaSignInOf(feature('hyperpodObservability', true, {}))).toBeNull();
  });
});

