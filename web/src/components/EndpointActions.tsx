// An endpoint's destructive and pool actions: delete (with the API's plan first), and moving a model pool's
// warm worker to another pool endpoint, effective at once.

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import FormField from '@cloudscape-design/components/form-field';
import Select from '@cloudscape-design/components/select';

import { plan } from '../lib/api';
import { inferenceApi, type EndpointView } from '../lib/inference';
import { useSession } from '../session';
import ConfirmAction, { ConfirmOperation } from './ConfirmAction';

export function DeleteEndpoint({ cluster, endpoint, onClose }: { cluster: string; endpoint: EndpointView; onClose: () => void }) {
  return (
    <ConfirmOperation
      header={`Delete endpoint ${endpoint.endpoint}?`}
      action="Delete endpoint"
      operation="delete_endpoint"
      params={{ name: cluster, endpoint: endpoint.endpoint }}
      planLabel="What the delete does"
      onClose={onClose}
    >
      <Box>Its pods stop and its URL stops answering. The model files in storage stay.</Box>
    </ConfirmOperation>
  );
}

/** A pool endpoint's workers carry the pool's binding: they say whom they serve. */
export function isPool(endpoint: EndpointView): boolean {
  return endpoint.kind === 'container' && (endpoint.pods ?? []).some((p) => p.serves);
}

/** Where a pool's worker may go: any container endpoint (one with no pods yet cannot show it is a pool; the
 * API's plan refuses one that is not). Known pools first. */
export function assignTargets(items: EndpointView[]): string[] {
  const containers = items.filter((e) => e.kind === 'container');
  return [...containers.filter(isPool), ...containers.filter((e) => !isPool(e))].map((e) => e.endpoint);
}

export function AssignPod({
  cluster,
  pool,
  pod,
  serves,
  pools,
  onClose,
  onDone,
}: {
  cluster: string;
  pool: string;
  pod: string;
  serves: string | null;
  pools: string[];
  onClose: () => void;
  onDone: () => void;
}) {
  const { notify } = useSession();
  const options = pools.map((p) => ({ value: p, label: p, description: p === serves ? 'served now' : undefined }));
  const [target, setTarget] = useState(pools.find((p) => p !== serves) ?? pools[0] ?? '');
  return (
    <ConfirmAction
      header={`Assign ${pod}`}
      action="Assign"
      ready={Boolean(target)}
      loadPlan={() => plan('assign_pod', { name: cluster, pool }, { body: { pod, endpoint: target } })}
      planDeps={[cluster, pool, pod, target]}
      planLabel="What the assignment does"
      onClose={onClose}
      onConfirm={async () => {
        const { data } = await inferenceApi.assignPod(cluster, pool, pod, target);
        notify({ type: 'success', header: `${pod} reassigned`, content: data.message });
        onDone();
      }}
    >
      <Box>
        A warm worker of the pool {pool}. It keeps running and its model stays loaded; the chosen endpoint's Service
        {serves ? ` takes it over from ${serves}` : ' starts sending it requests'} at once.
      </Box>
      <FormField label="Serve endpoint">
        <Select
          selectedOption={options.find((o) => o.value === target) ?? null}
          onChange={({ detail }) => setTarget(detail.selectedOption.value ?? '')}
          options={options}
          ariaLabel="Serve endpoint"
        />
      </FormField>
    </ConfirmAction>
  );
}
