// HyperPod-managed Karpenter for a cluster's instance groups: which groups it scales from zero, and off.

import { useState } from 'react';
import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Checkbox from '@cloudscape-design/components/checkbox';
import Container from '@cloudscape-design/components/container';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import Multiselect from '@cloudscape-design/components/multiselect';
import SpaceBetween from '@cloudscape-design/components/space-between';

import { api } from '../lib/api';
import type { InstanceGroupListView } from '../lib/types';
import { useAction } from '../lib/useAction';
import { useSession } from '../session';
import { useAnswer } from '../useAnswer';
import ErrorAlert from './ErrorAlert';
import Status from './Status';

export default function AutoscalingSection({ cluster, list }: { cluster: string; list: InstanceGroupListView | null }) {
  const follow = useAnswer();
  const { can } = useSession();
  const managed = (list?.items ?? []).filter((g) => g.karpenterManaged).map((g) => g.instanceGroup);
  const [groups, setGroups] = useState<string[] | null>(null);
  const [delay, setDelay] = useState<string | null>(null);
  const [letGo, setLetGo] = useState(false);
  const { busy, error, setError, run } = useAction();
  const chosen = groups ?? managed;
  const seconds = delay ?? String(list?.autoscaling?.consolidateAfterSeconds ?? 300);
  const state = list?.autoscaling;
  const on = state?.mode === 'Enable';
  const allowed = can('admin') && list?.clusterStatus === 'InService';
  // Karpenter starts the groups it manages at 0: the nodes of a group that has some go, only if confirmed.
  const losing = (list?.items ?? []).filter(
    (g) => chosen.includes(g.instanceGroup) && !g.karpenterManaged && Math.max(g.currentCount, g.targetCount) > 0,
  );

  const send = (enabled: boolean) =>
    run(async () => {
      const confirmed = letGo ? { confirmScaleToZero: losing.map((g) => g.instanceGroup) } : {};
      const body = enabled
        ? { enabled, instanceGroups: chosen, consolidateAfterSeconds: Number(seconds), ...confirmed }
        : { enabled };
      const { data } = await api.setAutoscaling(cluster, body);
      follow(data);
    });

  return (
    <Container
      header={
        <Header
          variant="h2"
          description="HyperPod-managed Karpenter scales HyperPod instance groups only, not plain EC2 instances or EKS node groups. A managed group starts at 0: a pending pod it fits brings a node, and idle nodes are removed after the delay."
          actions={
            <SpaceBetween direction="horizontal" size="xs">
              <Button disabled={!on || !allowed} loading={busy} onClick={() => void send(false)}>
                Disable
              </Button>
              <Button
                variant="primary"
                disabled={!allowed || !chosen.length || (losing.length > 0 && !letGo)}
                loading={busy}
                onClick={() => void send(true)}
              >
                {on ? 'Update autoscaling' : 'Enable autoscaling'}
              </Button>
            </SpaceBetween>
          }
        >
          Autoscaling (Karpenter)
        </Header>
      }
    >
      <SpaceBetween size="m">
        <ErrorAlert error={error} onDismiss={() => setError(null)} />
        {state?.failureMessage ? <Alert type="error" header="Autoscaling failed">{state.failureMessage}</Alert> : null}
        <Box>
          Status: <Status value={on ? state?.status ?? 'Unknown' : 'Disabled'} label={on ? `Enabled, ${state?.status ?? 'unknown'}` : 'Off'} />
        </Box>
        <FormField label="Managed instance groups" description="At most 10. Each is set to 0 instances when autoscaling is enabled; keep a group with a node outside autoscaling for system pods. Groups on a training plan or with deep health checks cannot be managed.">
          <Multiselect
            selectedOptions={chosen.map((g) => ({ value: g, label: g }))}
            options={(list?.items ?? []).map((g) => ({ value: g.instanceGroup, label: g.instanceGroup, description: g.instanceType ?? undefined }))}
            onChange={({ detail }) => setGroups(detail.selectedOptions.map((o) => o.value ?? '').filter(Boolean).slice(0, 10))}
            placeholder="Choose instance groups"
            ariaLabel="Managed instance groups"
          />
        </FormField>
        {losing.length ? (
          <Checkbox checked={letGo} onChange={({ detail }) => setLetGo(detail.checked)}>
            Terminate the running nodes of {losing.map((g) => `${g.instanceGroup} (${Math.max(g.currentCount, g.targetCount)})`).join(', ')}:
            Karpenter starts the groups it manages at 0
          </Checkbox>
        ) : null}
        <FormField label="Remove idle nodes after (seconds)">
          <Input type="number" value={seconds} onChange={({ detail }) => setDelay(detail.value)} ariaLabel="Remove idle nodes after (seconds)" />
        </FormField>
      </SpaceBetween>
    </Container>
  );
}
