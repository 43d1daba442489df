// Patch the HyperPod nodes' software (AMI and lifecycle) in rolling batches, with SageMaker's
// UpdateClusterSoftware: a batch of nodes at a time, a pause between batches.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_UpdateClusterSoftware.html

import { useState } from 'react';
import Alert from '@cloudscape-design/components/alert';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import Multiselect from '@cloudscape-design/components/multiselect';

import { ConfirmOperation } from './ConfirmAction';

export default function SoftwareUpdate({ cluster, groups, onClose }: { cluster: string; groups: string[]; onClose: () => void }) {
  const [chosen, setChosen] = useState<string[]>([]);
  const [percent, setPercent] = useState('25');
  const [wait, setWait] = useState('300');
  const batch = Number(percent);
  const pause = Number(wait);
  const valid = Number.isInteger(batch) && batch >= 1 && batch <= 100 && Number.isInteger(pause) && pause >= 0 && pause <= 3600;
  const body = {
    maxBatchSize: { type: 'CAPACITY_PERCENTAGE', value: batch },
    waitIntervalSeconds: pause,
    ...(chosen.length ? { instanceGroups: chosen } : {}),
  };
  const options = groups.map((g) => ({ value: g, label: g }));
  return (
    <ConfirmOperation
      header={`Update the software of ${cluster}`}
      action="Start update"
      ready={valid}
      operation="update_software"
      params={{ name: cluster }}
      options={{ body }}
      planLabel="What the update does"
      onClose={onClose}
    >
      <Alert type="warning">
        Each batch of nodes is taken out of service, patched to the latest HyperPod software and brought back. Pods on
        those nodes restart; plan it between training runs.
      </Alert>
      <FormField label="Instance groups" description="None chosen: every group.">
        <Multiselect
          selectedOptions={options.filter((o) => chosen.includes(o.value))}
          onChange={({ detail }) => setChosen(detail.selectedOptions.map((o) => o.value ?? ''))}
          options={options}
          placeholder="Every group"
          ariaLabel="Instance groups"
        />
      </FormField>
      <FormField
        label="Nodes per batch (percent of the group)"
        errorText={Number.isInteger(batch) && batch >= 1 && batch <= 100 ? undefined : 'A whole number from 1 to 100.'}
      >
        <Input type="number" value={percent} onChange={({ detail }) => setPercent(detail.value)} ariaLabel="Nodes per batch" />
      </FormField>
      <FormField
        label="Pause between batches (seconds)"
        errorText={Number.isInteger(pause) && pause >= 0 && pause <= 3600 ? undefined : 'A whole number from 0 to 3600.'}
      >
        <Input type="number" value={wait} onChange={({ detail }) => setWait(detail.value)} ariaLabel="Pause between batches" />
      </FormField>
    </ConfirmOperation>
  );
}
