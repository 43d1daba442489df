// Move nodes to another instance group (MoveClusterNodes): the selected nodes, or a count of one group's,
// to a target group of this cluster; the instances keep their capacity (training plan, reservation). The
// API's dry run shows which nodes and pods, before anything is drained.

import { useState } from 'react';
import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';
import Checkbox from '@cloudscape-design/components/checkbox';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';

import type { components } from '../api/schema';
import { call } from '../lib/api';
import type { InstanceGroupListView, InstanceGroupView } from '../lib/types';
import { useFetch } from '../lib/useFetch';
import { ConfirmOperation } from './ConfirmAction';
import ErrorAlert from './ErrorAlert';

type NodeView = components['schemas']['NodeView'];

function label(group: InstanceGroupView) {
  const plan = group.trainingPlanArn ? ` · plan ${group.trainingPlanArn.split('/').pop()}` : '';
  return { value: group.instanceGroup, label: group.instanceGroup, description: `${group.instanceType} · ${group.currentCount} of ${group.targetCount}${plan}` };
}

// One of the cluster's groups (``groups`` undefined while they load), offered but for ``except``.
function GroupSelect({
  name,
  placeholder,
  groups,
  except,
  value,
  onChange,
  empty,
}: {
  name: string;
  placeholder: string;
  groups: InstanceGroupView[] | undefined;
  except?: string;
  value: string;
  onChange: (group: string) => void;
  empty?: string;
}) {
  const chosen = groups?.find((g) => g.instanceGroup === value);
  return (
    <Select
      ariaLabel={name}
      placeholder={placeholder}
      statusType={groups ? 'finished' : 'loading'}
      loadingText="Loading the cluster's groups"
      selectedOption={chosen ? label(chosen) : null}
      options={(groups ?? []).filter((g) => g.instanceGroup !== except).map(label)}
      onChange={({ detail }) => onChange(detail.selectedOption.value ?? '')}
      empty={empty}
    />
  );
}

// Moves ``nodes`` (all of one group) or, with none, ``count`` nodes of a group chosen here.
export default function MoveNodes({ cluster, nodes, onClose }: { cluster: string; nodes: NodeView[]; onClose: () => void }) {
  const { data, error } = useFetch(() => call<InstanceGroupListView>('list_instance_groups', { name: cluster }), [cluster]);
  const named = nodes.length > 0;
  const [source, setSource] = useState<string>(named ? nodes[0].instanceGroup : '');
  const [target, setTarget] = useState<string>('');
  const [count, setCount] = useState('1');
  const [acknowledged, setAcknowledged] = useState(false);
  const amount = Number(count);
  const validCount = Number.isInteger(amount) && amount >= 1 && amount <= 50;
  const body = {
    sourceGroup: source,
    targetGroup: target,
    ...(named ? { nodeIds: nodes.map((n) => n.nodeId) } : { count: amount }),
    acknowledgeDataLoss: true,
  };
  const ready = Boolean(source && target && acknowledged && (named || validCount));
  return (
    <ConfirmOperation
      header={named ? `Move ${nodes.length} node${nodes.length === 1 ? '' : 's'}?` : 'Move nodes?'}
      action="Move nodes"
      ready={ready}
      operation="move_nodes"
      params={{ name: cluster }}
      options={{ body }}
      planLabel="What the move does"
      onClose={onClose}
    >
      <ErrorAlert error={error} />
      {named ? (
        <Box>
          {nodes.map((n) => n.nodeId).join(', ')} (from {source})
        </Box>
      ) : (
        <SpaceBetween direction="horizontal" size="m">
          <FormField label="From group">
            <GroupSelect name="From group" placeholder="Choose a group" groups={data?.items} value={source} onChange={setSource} />
          </FormField>
          <FormField label="How many nodes" constraintText="1 to 50; the Running ones with the fewest pods">
            <Input ariaLabel="How many nodes" type="number" value={count} invalid={!validCount} onChange={({ detail }) => setCount(detail.value)} />
          </FormField>
        </SpaceBetween>
      )}
      <FormField label="To group" description="The nodes join it with its configuration; their instance and capacity stay.">
        <GroupSelect
          name="To group"
          placeholder="Choose the target group"
          groups={data?.items}
          except={source}
          value={target}
          onChange={setTarget}
          empty="No other instance group"
        />
      </FormField>
      <Alert type="warning">
        The nodes are cordoned and their pods evicted first: jobs restart elsewhere, endpoints serve from their other
        replicas. The move replaces each node's root and secondary EBS volumes.
      </Alert>
      <Checkbox checked={acknowledged} onChange={({ detail }) => setAcknowledged(detail.checked)}>
        I understand the nodes' EBS data is lost
      </Checkbox>
    </ConfirmOperation>
  );
}
