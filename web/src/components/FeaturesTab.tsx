// Managed features: each toggle with its real state, what it depends on and what blocks it; a plan preview
// (dryRun) before anything runs, and only the features the user changed are sent (lib/diff.ts).

import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import Box from '@cloudscape-design/components/box';
import Checkbox from '@cloudscape-design/components/checkbox';
import Button from '@cloudscape-design/components/button';
import ColumnLayout from '@cloudscape-design/components/column-layout';
import Container from '@cloudscape-design/components/container';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import CloudscapeLink from '@cloudscape-design/components/link';
import RadioGroup from '@cloudscape-design/components/radio-group';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';
import Toggle from '@cloudscape-design/components/toggle';

import { api } from '../lib/api';
import { changedFields, submitEdit } from '../lib/diff';
import { type GrafanaSignIn, type Toggles, grafanaSignInOf, grafanaUrlOf, toggle, togglesOf, withGrafana, withNewGrafana } from '../lib/features';
import type { FeatureView, PlanStepView } from '../lib/types';
import { useAction } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import ErrorAlert from './ErrorAlert';
import KeyValue from './KeyValue';
import Status from './Status';
import TeamsSection from './TeamsSection';
import MlflowSection from './MlflowSection';

function FeatureCard({
  cluster,
  feature,
  value,
  onChange,
  disabled,
}: {
  cluster: string;
  feature: FeatureView;
  value: Record<string, unknown>;
  onChange: (next: Record<string, unknown>) => void;
  disabled: boolean;
}) {
  const enabled = Boolean(value.enabled);
  return (
    <div data-testid={`feature-${feature.name}`}>
      <Container
        header={
          <Header
            variant="h2"
            description={(feature.dependsOn ?? []).length ? `Depends on: ${(feature.dependsOn ?? []).join(', ')}` : undefined}
            actions={
              <Toggle
                checked={enabled}
                disabled={disabled || Boolean(feature.changedWith) || (!enabled && (feature.blockedBy ?? []).length > 0)}
                ariaLabel={`${feature.title} on or off`}
                onChange={({ detail }) => onChange(toggle(feature, detail.checked))}
              >
                {enabled ? 'On' : 'Off'}
              </Toggle>
            }
          >
            {feature.title}
          </Header>
        }
      >
        <SpaceBetween size="s">
          <ColumnLayout columns={3} variant="text-grid">
            <KeyValue label="Status"><Status value={feature.status} /></KeyValue>
            <KeyValue label="Version">{feature.version ?? '-'}</KeyValue>
            <KeyValue label="Blocked by">{(feature.blockedBy ?? []).length ? (feature.blockedBy ?? []).join('; ') : 'Nothing'}</KeyValue>
          </ColumnLayout>
        {feature.note ? <Box variant="small">{feature.note}</Box> : null}
        {feature.changedWith ? <Box variant="small">Changed with {feature.changedWith}.</Box> : null}
        {feature.name === 'taskGovernance' && feature.status === 'ACTIVE' ? <TeamsSection cluster={cluster} /> : null}
        {feature.name === 'tieredCheckpointing' && enabled ? (
          <FormField label="Memory for checkpoints (%)" description="InstanceMemoryAllocationPercentage of each node">
            <Input
              type="number"
              value={String(value.memoryPercentage ?? '')}
              disabled={disabled}
              onChange={({ detail }) => onChange({ enabled: true, memoryPercentage: Number(detail.value) })}
            />
          </FormField>
        ) : null}
        {feature.name === 'hyperpodObservability' ? <GrafanaField feature={feature} value={value} onChange={onChange} disabled={disabled} /> : null}
        <Box variant="awsui-key-label">Behind it</Box>
        <SpaceBetween size="xxxs">
          {(feature.objects ?? []).map((o) => (
            <Box key={`${o.kind}/${o.name}`} variant="small">
              {o.kind} <b>{o.name}</b>: {o.state ?? '-'}
            </Box>
          ))}
        </SpaceBetween>
      </SpaceBetween>
    </Container>
    </div>
  );
}

// The add-on's Grafana dashboards: a link to the cluster dashboard when it writes to an Amazon Managed Grafana
// workspace (and how people sign in to one Launchpod made); before it is installed, an existing workspace to give
// it, or one for Launchpod to create (functions/launchpod/domain/hyperpod_observability.py says how).
function GrafanaField({
  feature,
  value,
  onChange,
  disabled,
}: {
  feature: FeatureView;
  value: Record<string, unknown>;
  onChange: (next: Record<string, unknown>) => void;
  disabled: boolean;
}) {
  const url = grafanaUrlOf(feature);
  const signIn = grafanaSignInOf(feature);
  if (url) {
    return (
      <KeyValue label="Dashboards">
        <CloudscapeLink external href={url}>
          Cluster dashboard in Amazon Managed Grafana
        </CloudscapeLink>
        {signIn ? (
          <Box variant="small" data-testid="grafana-sign-in">
            Sign-in: {signIn}
          </Box>
        ) : null}
      </KeyValue>
    );
  }
  if (feature.enabled) {
    return (
      <Box variant="small">
        No Amazon Managed Grafana workspace: the charts here read the Prometheus workspace. To use Grafana&apos;s
        dashboards, turn the feature off and on again with a workspace.
      </Box>
    );
  }
  if (!value.enabled) return null;
  const creating = value.createGrafanaWorkspace === true;
  return (
    <SpaceBetween size="s">
      <FormField
        label="Amazon Managed Grafana workspace (optional)"
        description="The ARN of an existing workspace for the add-on's dashboards, or let Launchpod create one below."
        constraintText="arn:aws:grafana:<region>:<account>:/workspaces/g-…"
      >
        <Input
          value={String(value.grafanaWorkspaceArn ?? '')}
          placeholder="arn:aws:grafana:us-east-1:111122223333:/workspaces/g-abcd1234"
          ariaLabel="Amazon Managed Grafana workspace ARN"
          disabled={disabled || creating}
          onChange={({ detail }) => onChange(withGrafana(detail.value))}
        />
      </FormField>
      <Checkbox
        checked={creating}
        disabled={disabled}
        description="A workspace reading the Prometheus workspace, with a role Launchpod makes; deleted when the feature is turned off."
        onChange={({ detail }) => onChange(withNewGrafana(detail.checked ? 'SAML' : null))}
      >
        Create an Amazon Managed Grafana workspace
      </Checkbox>
      {creating ? (
        <FormField
          label="Sign-in"
          description="SAML works with any identity provider: give the workspace its metadata afterwards. IAM Identity Center needs it enabled in the account."
        >
          <RadioGroup
            value={String(value.grafanaAuthentication ?? 'SAML')}
            onChange={({ detail }) => onChange(withNewGrafana(detail.value as GrafanaSignIn))}
            items={[
              { value: 'SAML', label: 'SAML (your identity provider)' },
              { value: 'AWS_SSO', label: 'IAM Identity Center' },
            ]}
          />
        </FormField>
      ) : null}
    </SpaceBetween>
  );
}

export default function FeaturesTab({ cluster, ready }: { cluster: string; ready: boolean }) {
  const navigate = useNavigate();
  const { can, notify } = useSession();
  const { data, error, loading, reload } = useFetch(() => api.features(cluster), [cluster]);
  const original = useMemo(() => togglesOf(data?.items ?? []), [data]);
  const [edited, setEdited] = useState<Toggles>({});
  const [plan, setPlan] = useState<PlanStepView[] | null>(null);
  const { busy, error: actionError, setError: setActionError, run } = useAction();
  useEffect(() => setEdited(original), [original]);
  const changed = changedFields(original, edited);
  const dirty = Object.keys(changed).length > 0;

  function change(name: string, next: Record<string, unknown>) {
    setEdited((current) => ({ ...current, [name]: next }));
    setPlan(null);
  }

  const preview = () =>
    run(async () => {
      const { data: answer } = await api.updateFeatures(cluster, changed, true);
      setPlan(answer.status === 'PLANNED' ? answer.steps : []);
    });

  const apply = () =>
    run(async () => {
      const outcome = await submitEdit(original, edited, async (patch) => {
        const { data: answer } = await api.updateFeatures(cluster, patch);
        if (answer.status === 'PLANNED') throw new Error('unexpected plan');
        return { data: answer };
      });
      if (outcome.kind === 'noop') {
        notify({ type: 'info', header: 'No changes', content: outcome.message });
        void reload();
      } else {
        navigate(`/operations/${outcome.operation.id}`);
      }
    });

  const mayChange = ready && can('admin');
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={error} />
      <ErrorAlert error={actionError} onDismiss={() => setActionError(null)} />
      <Header
        variant="h2"
        description="Turn a feature on or off, preview what Launchpod will do, then apply. Only the features you change are sent."
        actions={
          <SpaceBetween direction="horizontal" size="xs">
            <Button iconName="refresh" ariaLabel="Refresh features" onClick={() => void reload()} />
            <Button disabled={!dirty || !mayChange} loading={busy} onClick={() => void preview()}>
              Preview plan
            </Button>
            <Button
              variant="primary"
              disabled={!dirty || !mayChange}
              disabledReason={!mayChange ? 'Changing features needs the admin role and an ACTIVE cluster.' : 'Change a feature first.'}
              loading={busy}
              onClick={() => void apply()}
            >
              Apply changes
            </Button>
          </SpaceBetween>
        }
      >
        Managed features
      </Header>
      {loading && !data ? <Box>Loading features</Box> : null}
      {(data?.items ?? []).map((feature) => (
        <FeatureCard
          key={feature.name}
          cluster={cluster}
          feature={feature}
          value={edited[feature.name] ?? original[feature.name] ?? { enabled: feature.enabled }}
          onChange={(next) => change(feature.name, next)}
          disabled={!mayChange || busy}
        />
      ))}
      {plan ? (
        <Table
          variant="container"
          wrapLines
          items={plan}
          trackBy={(s) => `${s.action}:${s.target}`}
          header={<Header variant="h2" counter={`(${plan.length})`} description="Nothing has started yet.">Plan</Header>}
          empty={<Box textAlign="center">Nothing to do: the cluster already matches.</Box>}
          columnDefinitions={[
            { id: 'action', header: 'Action', cell: (s) => s.action },
            { id: 'target', header: 'What', isRowHeader: true, cell: (s) => s.target },
            { id: 'reason', header: 'Why', cell: (s) => s.reason },
            { id: 'phase', header: 'Phase', cell: (s) => s.phase ?? '-' },
          ]}
        />
      ) : null}
      {ready ? <MlflowSection cluster={cluster} /> : null}
    </SpaceBetween>
  );
}
