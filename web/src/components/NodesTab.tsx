// The cluster's nodes with their health, one node's detail, reboot/replace/delete with confirmation, moves
// to another group (MoveNodes),
// the node incidents with the remediation ladder's state and next step, and HyperPod's events.

import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Checkbox from '@cloudscape-design/components/checkbox';
import Container from '@cloudscape-design/components/container';
import Header from '@cloudscape-design/components/header';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import Modal from '@cloudscape-design/components/modal';
import SegmentedControl from '@cloudscape-design/components/segmented-control';
import SpaceBetween from '@cloudscape-design/components/space-between';
import StatusIndicator from '@cloudscape-design/components/status-indicator';
import Table from '@cloudscape-design/components/table';

import { ApiError, call, plan } from '../lib/api';
import { getToken } from '../lib/auth';
import type { components } from '../api/schema';
import { websocketUrl } from '../lib/config';
import { formatTime } from '../lib/format';
import type { OperationAcceptedView, PlanView } from '../lib/types';
import { useAction } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import { ConfirmOperation } from './ConfirmAction';
import Diagnosis, { type DiagnosisView, StepHow } from './Diagnosis';
import ErrorAlert from './ErrorAlert';
import ListTable from './ListTable';
import MoveNodes from './MoveNodes';
import MetricsCharts from './MetricsCharts';
import { DryRunPlan } from './PlanSteps';
import Status from './Status';

// Views from the API's OpenAPI document (src/api/schema.d.ts).
type NodeView = components['schemas']['NodeView'];
type NodeDetailView = components['schemas']['NodeDetailView'];
type IncidentView = components['schemas']['IncidentView'];
type EventView = components['schemas']['ClusterEventView'];
type Action = 'reboot' | 'replace' | 'delete';

const STEP = { investigate: 'Investigate', reboot: 'Reboot', replace: 'Replace', alert: 'Alert a person' } as const;
const OPERATION = { reboot: 'reboot_nodes', replace: 'replace_nodes', delete: 'delete_nodes' } as const;

function health(node: NodeView) {
  if (!node.healthStatus) return <StatusIndicator type="pending">Not joined</StatusIndicator>;
  const ok = node.healthStatus === 'Schedulable';
  const text = node.faultTypes?.length ? `${node.healthStatus} (${(node.faultTypes ?? []).join(', ')})` : node.healthStatus;
  // one line, as Status does: "UnschedulablePendingReplacement" broken in three reads as three words
  return (
    <span style={{ whiteSpace: 'nowrap' }}>
      <StatusIndicator type={ok ? 'success' : 'error'}>{text}</StatusIndicator>
    </span>
  );
}

function incidentState(state: string) {
  const type = state === 'resolved' ? 'success' : state === 'watching' || state === 'acting' ? 'in-progress' : 'error';
  return <StatusIndicator type={type}>{state}</StatusIndicator>;
}

const CHECKS = [
  { id: 'InstanceStress', text: 'Instance stress', description: 'GPU, memory and NVLink under load (about 15 minutes on AWS)' },
  { id: 'InstanceConnectivity', text: 'Instance connectivity', description: 'EFA and NCCL between the nodes' },
] as const;

// Deep health checks on demand (SageMaker StartClusterHealthCheck) for the selected nodes, by group.
function HealthChecks({ cluster, nodes, onClose }: { cluster: string; nodes: NodeView[]; onClose: () => void }) {
  const [checks, setChecks] = useState<string[]>(['InstanceStress']);
  const groups = Array.from(new Set(nodes.map((n) => n.instanceGroup)));
  const targets = groups.map((group) => ({
    instanceGroup: group,
    nodeIds: nodes.filter((n) => n.instanceGroup === group).map((n) => n.nodeId),
  }));
  const body = { targets, checks };
  return (
    <ConfirmOperation
      header={`Run health checks on ${nodes.length} node${nodes.length === 1 ? '' : 's'}?`}
      action="Run health checks"
      ready={checks.length > 0}
      operation="start_health_check"
      params={{ name: cluster }}
      options={{ body }}
      planLabel="What the health checks do"
      onClose={onClose}
    >
      <Box>{nodes.map((n) => n.nodeId).join(', ')}</Box>
      <Alert type="warning">
        The nodes take no new work while they are checked. HyperPod reboots or replaces a node that fails, and a
        replacement loses its local volumes.
      </Alert>
      <SpaceBetween size="xxs">
        {CHECKS.map((check) => (
          <Checkbox
            key={check.id}
            checked={checks.includes(check.id)}
            description={check.description}
            onChange={({ detail }) =>
              setChecks((now) => (detail.checked ? [...now, check.id] : now.filter((c) => c !== check.id)))
            }
          >
            {check.text}
          </Checkbox>
        ))}
      </SpaceBetween>
    </ConfirmOperation>
  );
}

function NodeDiagnosis({ cluster, nodeId }: { cluster: string; nodeId: string }) {
  const [view, setView] = useState<DiagnosisView | null>(null);
  const { busy, error, run } = useAction();
  const diagnose = () =>
    run(async () => {
      setView((await call<DiagnosisView>('diagnose_node', { name: cluster, nodeId })).data);
    });
  return (
    <SpaceBetween size="s">
      <Button loading={busy} onClick={() => void diagnose()}>
        Diagnose node
      </Button>
      <ErrorAlert error={error} />
      {view ? <Diagnosis view={view} title="Node diagnosis" /> : null}
    </SpaceBetween>
  );
}

function NodeDetail({ cluster, nodeId }: { cluster: string; nodeId: string }) {
  const { data, error } = useFetch(() => call<NodeDetailView>('get_node', { name: cluster, nodeId }), [cluster, nodeId], 5000);
  return (
    <Container header={<Header variant="h2">Node {nodeId}</Header>}>
      <ErrorAlert error={error} />
      {data ? (
        <SpaceBetween size="m">
          <KeyValuePairs
            columns={3}
            items={[
              { label: 'Kubernetes node', value: data.kubernetesNode ?? '-' },
              { label: 'Private IP', value: data.privateIp ?? '-' },
              { label: 'HyperPod status', value: <Status value={data.instanceStatus} label={data.instanceMessage ? `${data.instanceStatus}: ${data.instanceMessage}` : data.instanceStatus} /> },
              { label: 'Conditions', value: (data.conditions ?? []).map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`).join(', ') || '-' },
              { label: 'Health labels', value: Object.entries(data.healthLabels ?? {}).map(([k, v]) => `${k.replace('sagemaker.amazonaws.com/', '')}=${v}`).join(', ') || '-' },
              { label: 'Taints', value: (data.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).join(', ') || 'none' },
              { label: 'Pods', value: (data.pods ?? []).map((p) => `${p.namespace}/${p.name}`).join(', ') || 'none' },
            ]}
          />
          <MetricsCharts op="get_node_metrics" params={{ name: cluster, nodeId }} title="GPUs and EFA" />
          <Table
            variant="embedded"
            header={<Header variant="h3">Kubernetes events</Header>}
            items={data.events ?? []}
            empty={<Box textAlign="center">No events about this node.</Box>}
            columnDefinitions={[
              { id: 'type', header: 'Type', cell: (e) => e.type ?? '-' },
              { id: 'reason', header: 'Reason', cell: (e) => e.reason ?? '-' },
              { id: 'message', header: 'Message', cell: (e) => e.message ?? '-' },
              { id: 'time', header: 'Last seen', cell: (e) => (e.lastTimestamp ? formatTime(e.lastTimestamp) : '-') },
            ]}
          />
          <NodeDiagnosis key={nodeId} cluster={cluster} nodeId={nodeId} />
        </SpaceBetween>
      ) : null}
    </Container>
  );
}

function Incidents({ cluster }: { cluster: string }) {
  const { can } = useSession();
  const { data, error, reload } = useFetch(
    () => call<{ policy: string; items: IncidentView[] }>('list_incidents', { name: cluster }),
    [cluster],
    10000,
  );
  const [policyError, setPolicyError] = useState<unknown>(null);
  // Incidents and node-health events are pushed on the cluster's topic: read again on each push (the
  // 10 s refresh above covers a socket that cannot be opened).
  useEffect(() => {
    const token = getToken();
    if (!token || typeof WebSocket === 'undefined') return undefined;
    let socket: WebSocket;
    try {
      socket = new WebSocket(websocketUrl(token));
    } catch {
      return undefined;
    }
    socket.onopen = () => socket.send(JSON.stringify({ action: 'subscribe', topics: [`cluster:${cluster}`] }));
    socket.onmessage = (event) => {
      try {
        const message = JSON.parse(String(event.data)) as { type?: string };
        if (message.type === 'incident' || message.type === 'node-health') void reload();
      } catch {
        // not a message of ours
      }
    };
    return () => socket.close();
  }, [cluster, reload]);
  async function setPolicy(policy: string) {
    setPolicyError(null);
    try {
      await call('set_ladder_policy', { name: cluster }, { body: { policy } });
      void reload();
    } catch (caught) {
      setPolicyError(caught);
    }
  }
  return (
    <SpaceBetween size="s">
      <ErrorAlert error={error} />
      <ErrorAlert error={policyError} onDismiss={() => setPolicyError(null)} />
      <Table
        variant="container"
        wrapLines
        trackBy="id"
        items={data?.items ?? []}
        empty={<Box textAlign="center">No incidents: no node has reported a fault.</Box>}
        header={
          <Header
            variant="h2"
            counter={data ? `(${data.items.length})` : undefined}
            description="Health events folded per node. The ladder investigates, reboots once, then replaces; it stops at fleet instability."
            actions={
              <SegmentedControl
                label="Ladder policy"
                selectedId={data?.policy ?? 'suggest'}
                onChange={({ detail }) => void setPolicy(detail.selectedId)}
                options={['off', 'suggest', 'auto'].map((id) => ({ id, text: id, disabled: !can('admin') }))}
              />
            }
          >
            Incidents
          </Header>
        }
        columnDefinitions={[
          { id: 'node', header: 'Node', minWidth: 190, cell: (i) => i.nodes.join(' → ') },
          { id: 'state', header: 'State', minWidth: 110, cell: (i) => incidentState(i.state) },
          { id: 'fault', header: 'Fault', cell: (i) => i.faultType ?? '-' },
          { id: 'events', header: 'Events', cell: (i) => `${i.events} (${i.duplicates} duplicates)` },
          { id: 'ladder', header: 'Ladder', cell: (i) => i.steps.map((s) => `${s.action} ${s.mode}`).join(' · ') },
          {
            id: 'next',
            header: 'Next step',
            cell: (i) =>
              i.nextStep ? (
                <SpaceBetween size="xxxs">
                  <Box fontWeight="bold">{STEP[i.nextStep.action]}</Box>
                  <Box variant="small">{i.nextStep.why}</Box>
                  <StepHow step={i.nextStep} showWhy={false} width={360} />
                </SpaceBetween>
              ) : (
                '-'
              ),
          },
          { id: 'opened', header: 'Opened', cell: (i) => formatTime(i.openedAt) },
        ]}
      />
    </SpaceBetween>
  );
}

function Events({ cluster }: { cluster: string }) {
  const { data, error } = useFetch(
    () => call<{ items: EventView[] }>('list_cluster_events', { name: cluster }, { query: { limit: 30 } }),
    [cluster],
    10000,
  );
  // HyperPod keeps events only for clusters with continuous provisioning; the API says so with a 409.
  if (error instanceof ApiError && error.status === 409) {
    return (
      <Alert type="info" header="Cluster events">
        {error.message}
      </Alert>
    );
  }
  return (
    <SpaceBetween size="s">
      <ErrorAlert error={error} />
      <Table
        variant="container"
        wrapLines
        trackBy="eventId"
        items={data?.items ?? []}
        header={<Header variant="h2">Cluster events</Header>}
        empty={<Box textAlign="center">No events.</Box>}
        columnDefinitions={[
          { id: 'time', header: 'Time', minWidth: 190, cell: (e) => (e.time ? formatTime(e.time) : '-') },
          { id: 'level', header: 'Level', minWidth: 100, cell: (e) => <StatusIndicator type={e.level === 'Error' ? 'error' : e.level === 'Warn' ? 'warning' : 'info'}>{e.level}</StatusIndicator> },
          { id: 'node', header: 'Node', minWidth: 190, cell: (e) => e.nodeId ?? e.instanceGroup ?? '-' },
          { id: 'description', header: 'Description', cell: (e) => (e.failureMessage ? `${e.description} — ${e.failureMessage}` : e.description) },
        ]}
      />
    </SpaceBetween>
  );
}

export default function NodesTab({ cluster }: { cluster: string }) {
  const navigate = useNavigate();
  const { can } = useSession();
  const { data, error, loading, reload } = useFetch(() => call<{ items: NodeView[] }>('list_nodes', { name: cluster }), [cluster], 5000);
  const [selected, setSelected] = useState<NodeView[]>([]);
  const [confirm, setConfirm] = useState<Action | null>(null);
  const [checking, setChecking] = useState(false);
  const [moving, setMoving] = useState(false);
  const oneGroup = new Set(selected.map((n) => n.instanceGroup)).size <= 1;
  const [acknowledged, setAcknowledged] = useState(false);
  const { busy, error: actionError, setError: setActionError, run } = useAction();
  const ids = selected.map((n) => n.nodeId);
  // the dry run of this action on these nodes has answered: the button confirms what its plan shows
  const planKey = `${confirm}:${ids.join(',')}`;
  const [plannedFor, setPlannedFor] = useState<string | null>(null);

  const act = (action: Action) =>
    run(async () => {
      const body = action === 'reboot' ? { nodeIds: ids } : { nodeIds: ids, acknowledgeDataLoss: acknowledged };
      const { data: answer } = await call<OperationAcceptedView>(OPERATION[action], { name: cluster }, { body });
      setConfirm(null);
      navigate(`/operations/${answer.operation.id}`);
    });
  const needs = (action: Action) => (action === 'reboot' ? 'operator' : 'admin');
  const button = (action: Action, text: string) => (
    <Button
      disabled={!ids.length || !can(needs(action))}
      disabledReason={!ids.length ? 'Select nodes first.' : `This needs the ${needs(action)} role.`}
      onClick={() => {
        setAcknowledged(false);
        setPlannedFor(null);
        setConfirm(action);
      }}
    >
      {text}
    </Button>
  );

  return (
    <SpaceBetween size="l">
      <ErrorAlert error={error} />
      <ListTable what="nodes" fetched={{ data, loading, reload }}
        trackBy="nodeId"
        selectionType="multi"
        selectedItems={selected}
        onSelectionChange={({ detail }) => setSelected(detail.selectedItems)}
        ariaLabels={{ selectionGroupLabel: 'Nodes', itemSelectionLabel: (_, n) => n.nodeId, allItemsSelectionLabel: () => 'All nodes' }}
        empty="No HyperPod nodes."
        description="HyperPod's instances joined with their Kubernetes nodes and the health agent's verdict."
        actions={
          <>
            <Button
              disabled={!ids.length || !can('admin')}
              disabledReason={!ids.length ? 'Select nodes first.' : 'Health checks need the admin role.'}
              onClick={() => setChecking(true)}
            >
              Run health checks
            </Button>
            <Button
              disabled={!can('admin') || !oneGroup}
              disabledReason={!can('admin') ? 'Moving nodes needs the admin role.' : 'Select nodes of one group.'}
              onClick={() => setMoving(true)}
            >
              Move nodes
            </Button>
            {button('reboot', 'Reboot')}
            {button('replace', 'Replace')}
            {button('delete', 'Delete')}
          </>
        }
        columnDefinitions={[
          // the group and type under the node, Kubernetes' Ready under HyperPod's status: nine columns ran past
          // the card at 1280 px and cut GPUs and pods off
          {
            id: 'id',
            header: 'Node',
            minWidth: 190,
            cell: (n) => (
              <>
                {n.nodeId}
                <Box variant="small" display="block">{n.instanceGroup} · {n.instanceType}</Box>
              </>
            ),
          },
          { id: 'zone', header: 'Zone', cell: (n) => `${n.availabilityZone ?? '-'} · ${n.capacityType ?? '-'}` },
          {
            id: 'status',
            header: 'Status',
            minWidth: 120,
            cell: (n) => (
              <>
                <Status value={n.instanceStatus} label={n.instanceStatus} />
                <Box variant="small" display="block">{n.ready === null ? '-' : n.ready ? 'Ready' : 'NotReady'}</Box>
              </>
            ),
          },
          { id: 'health', header: 'Health', minWidth: 150, cell: health },
          { id: 'gpus', header: 'GPUs', cell: (n) => `${n.gpusAllocated} / ${n.gpusAllocatable}` },
          { id: 'pods', header: 'Pods', cell: (n) => n.pods?.length ?? 0 },
        ]}
      />
      <ErrorAlert error={actionError} onDismiss={() => setActionError(null)} />
      {selected.length === 1 ? <NodeDetail cluster={cluster} nodeId={selected[0].nodeId} /> : null}
      {checking ? <HealthChecks cluster={cluster} nodes={selected} onClose={() => setChecking(false)} /> : null}
      {moving ? <MoveNodes cluster={cluster} nodes={selected} onClose={() => setMoving(false)} /> : null}
      <Incidents cluster={cluster} />
      <Events cluster={cluster} />
      <Modal
        visible={confirm !== null}
        onDismiss={() => setConfirm(null)}
        header={confirm ? `${confirm[0].toUpperCase()}${confirm.slice(1)} ${ids.length} node${ids.length === 1 ? '' : 's'}?` : ''}
        footer={
          <Box float="right">
            <SpaceBetween direction="horizontal" size="xs">
              <Button variant="link" onClick={() => setConfirm(null)}>
                Cancel
              </Button>
              <Button
                variant="primary"
                loading={busy}
                disabled={(confirm !== 'reboot' && !acknowledged) || plannedFor !== planKey}
                onClick={() => confirm && void act(confirm)}
              >
                {confirm ? `${confirm[0].toUpperCase()}${confirm.slice(1)}` : ''}
              </Button>
            </SpaceBetween>
          </Box>
        }
      >
        <SpaceBetween size="s">
          <Box>{ids.join(', ')}</Box>
          {confirm === 'reboot' ? (
            <Box>The pods on these nodes are interrupted while they reboot (about 1-3 minutes).</Box>
          ) : (
            <>
              <Box color="text-status-error">
                Every local volume of these nodes, root and secondary, is destroyed: whatever is stored on them is lost
                for good. Back up to S3 or FSx for Lustre first.
              </Box>
              <Checkbox checked={acknowledged} onChange={({ detail }) => setAcknowledged(detail.checked)}>
                I understand the nodes' local data is lost
              </Checkbox>
            </>
          )}
          {/* the action's plan, asked of the API as a dry run; a replace or delete once its data loss is acknowledged */}
          {confirm && (confirm === 'reboot' || acknowledged) ? (
            <DryRunPlan
              load={() =>
                plan<PlanView>(OPERATION[confirm], { name: cluster }, {
                  body: confirm === 'reboot' ? { nodeIds: ids } : { nodeIds: ids, acknowledgeDataLoss: true },
                })
              }
              deps={[cluster, confirm, ids.join(',')]}
              label={`What the ${confirm} does`}
              onSettled={() => setPlannedFor(planKey)}
            />
          ) : null}
        </SpaceBetween>
      </Modal>
    </SpaceBetween>
  );
}
