// "Try another zone" for a HyperPod creation that failed (most often: no capacity in its zone). Offers the
// zones that have every instance type asked for, shows the dry run's plan (the failed cluster deleted, then
// created again there), and sends the same request with the new zone.

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import FormField from '@cloudscape-design/components/form-field';
import Modal from '@cloudscape-design/components/modal';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';

import { api } from '../lib/api';
import type { HyperPodAsk } from '../lib/hyperpodAgain';
import { otherZones } from '../lib/hyperpodAgain';
import { useAction } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import ErrorAlert from './ErrorAlert';
import { DryRunPlan } from './PlanSteps';

export default function HyperPodAgain({
  cluster,
  region,
  ask,
  onClose,
  onStarted,
}: {
  cluster: string;
  region?: string; // the cluster's Region: its instance types and zones
  ask: HyperPodAsk;
  onClose: () => void;
  onStarted: (operationId: string) => void;
}) {
  const types = useFetch(() => api.instanceTypes(undefined, region), [region]);
  const zones = otherZones(ask, types.data?.items ?? []);
  const [chosen, setZone] = useState('');
  const zone = chosen || zones[0] || '';
  const { busy, error: failure, run } = useAction();
  const body = { ...ask, availabilityZone: zone };
  const groups = ask.instanceGroups.map((g) => `${g.instanceCount} × ${g.instanceType}`).join(', ');

  const start = () =>
    run(async () => {
      const { data } = await api.createHyperPod(cluster, body);
      if ('operation' in data) onStarted(data.operation.id);
    });

  return (
    <Modal
      visible
      onDismiss={onClose}
      header="Try HyperPod in another zone"
      closeAriaLabel="Close"
      footer={
        <Box float="right">
          <SpaceBetween direction="horizontal" size="xs">
            <Button variant="link" onClick={onClose}>
              Keep it failed
            </Button>
            <Button variant="primary" loading={busy} disabled={!zone} onClick={() => void start()}>
              Create in {zone || 'another zone'}
            </Button>
          </SpaceBetween>
        </Box>
      }
    >
      <SpaceBetween size="m">
        <Box>
          {groups} failed in {ask.availabilityZone}. Capacity is per zone: the same request in another zone deletes
          the failed HyperPod cluster and creates it again there, with a compute subnet of its own.
        </Box>
        <FormField label="Availability zone" description="Zones that offer every instance type asked for">
          <Select
            selectedOption={zone ? { value: zone, label: zone } : null}
            options={zones.map((z) => ({ value: z, label: z }))}
            placeholder="Choose a zone"
            empty={`No other zone offers ${[...new Set(ask.instanceGroups.map((g) => g.instanceType))].join(' and ')}`}
            statusType={types.loading ? 'loading' : 'finished'}
            onChange={({ detail }) => setZone(detail.selectedOption.value ?? '')}
            ariaLabel="Availability zone"
          />
        </FormField>
        {zone ? (
          <DryRunPlan load={() => api.createHyperPod(cluster, body, true)} deps={[cluster, zone]} label="What it does" />
        ) : null}
        <ErrorAlert error={failure} />
      </SpaceBetween>
    </Modal>
  );
}
