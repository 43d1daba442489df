// One cluster: EKS and HyperPod status, and a tab per capability.

import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import ContentLayout from '@cloudscape-design/components/content-layout';
import Header from '@cloudscape-design/components/header';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Spinner from '@cloudscape-design/components/spinner';
import Tabs from '@cloudscape-design/components/tabs';
import Badge from '@cloudscape-design/components/badge';
import ButtonDropdown from '@cloudscape-design/components/button-dropdown';
import FormField from '@cloudscape-design/components/form-field';
import Select from '@cloudscape-design/components/select';
import { useState, type ReactNode } from 'react';

import Breadcrumbs from '../components/Breadcrumbs';
import ConfirmAction from '../components/ConfirmAction';
import DependenciesTab from '../components/DependenciesTab';
import { CreationDiagnosis } from '../components/Diagnoses';
import FeaturesTab from '../components/FeaturesTab';
import StorageTab from '../components/StorageTab';
import JobsTab from '../components/JobsTab';
import SpacesTab from '../components/SpacesTab';
import InferenceTab from '../components/InferenceTab';
import ErrorAlert from '../components/ErrorAlert';
import MetricsCharts, { IdleCapacity } from '../components/MetricsCharts';
import InstanceGroupsTab from '../components/InstanceGroupsTab';
import NodesTab from '../components/NodesTab';
import NotificationsTab from '../components/NotificationsTab';
import Link from '../components/Link';
import OperationsTable from '../components/OperationsTable';
import Status from '../components/Status';
import { api, call, plan } from '../lib/api';
import { formatTime } from '../lib/format';
import type { ClusterView, OperationAcceptedView } from '../lib/types';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';

function Overview({ cluster }: { cluster: ClusterView }) {
  const addons = Object.entries(cluster.eks.addons ?? {});
  return (
    <SpaceBetween size="l">
      <Container header={<Header variant="h2">EKS control plane</Header>}>
        <KeyValuePairs
          columns={3}
          items={[
            { label: 'Status', value: <Status value={cluster.eks.status} /> },
            { label: 'Kubernetes version', value: cluster.eks.version ?? '-' },
            { label: 'Authentication mode', value: cluster.eks.authenticationMode ?? '-' },
            { label: 'Endpoint', value: cluster.eks.endpoint ? <Box variant="code">{cluster.eks.endpoint}</Box> : '-' },
            { label: 'VPC', value: cluster.eks.vpcId ?? '-' },
            { label: 'Subnets', value: cluster.eks.subnetIds?.length ? cluster.eks.subnetIds.join(', ') : '-' },
            { label: 'ARN', value: cluster.eks.arn ? <Box variant="code">{cluster.eks.arn}</Box> : '-' },
            {
              label: 'Add-ons',
              value: addons.length ? (
                <SpaceBetween size="xxxs">
                  {addons.map(([name, status]) => (
                    <Status key={name} value={status} label={`${name}: ${status}`} />
                  ))}
                </SpaceBetween>
              ) : (
                '-'
              ),
            },
          ]}
        />
      </Container>
      <Container header={<Header variant="h2">HyperPod cluster</Header>}>
        <KeyValuePairs
          columns={3}
          items={[
            { label: 'Status', value: <Status value={cluster.hyperpod.status} /> },
            { label: 'Node recovery', value: cluster.hyperpod.nodeRecovery ?? '-' },
            { label: 'ARN', value: cluster.hyperpod.arn ? <Box variant="code">{cluster.hyperpod.arn}</Box> : '-' },
            ...(cluster.hyperpod.failureMessage ? [{ label: 'Failure', value: cluster.hyperpod.failureMessage }] : []),
          ]}
        />
      </Container>
      <CreationDiagnosis cluster={cluster.name} />
      <MetricsCharts
        op="get_cluster_gpu_metrics"
        params={{ name: cluster.name }}
        title="GPU utilisation by instance group"
        area={['idleGpus']}
      />
      <IdleCapacity cluster={cluster.name} />
    </SpaceBetween>
  );
}

function ClusterOperations({ name }: { name: string }) {
  const { data, error, loading, reload } = useFetch(() => api.operations({ cluster: name }), [name], 5000);
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={error} />
      <OperationsTable operations={data?.items ?? []} loading={loading && !data} onRefresh={() => void reload()} variant="container" showCluster={false} />
    </SpaceBetween>
  );
}

// The four provisioning workflows, each re-runnable alone with the settings Launchpod recorded for it.
const PHASES = [
  { value: 'control-plane', label: 'EKS control plane', description: 'network, IAM roles, the EKS cluster and its core add-ons' },
  { value: 'dependencies', label: 'Dependencies', description: "the pinned add-ons and charts HyperPod's nodes need" },
  { value: 'hyperpod', label: 'HyperPod cluster', description: 'lifecycle scripts, execution role, subnet and the HyperPod cluster' },
  { value: 'storage', label: 'Storage', description: 'the CSI driver and the shared claim' },
];

function RunPhase({ name, onClose }: { name: string; onClose: () => void }) {
  const navigate = useNavigate();
  const [phase, setPhase] = useState(PHASES[1]);
  return (
    <ConfirmAction
      header={`Run a provisioning phase of ${name} again`}
      action={`Run ${phase.label}`}
      loadPlan={() => plan('run_cluster_phase', { name, phase: phase.value })}
      planDeps={[name, phase.value]}
      planLabel="What it would do"
      onClose={onClose}
      onConfirm={async () => {
        const { data } = await call<OperationAcceptedView>('run_cluster_phase', { name, phase: phase.value }, { body: {} });
        navigate(`/operations/${encodeURIComponent(data.operation.id)}`);
      }}
    >
      <FormField label="Phase" description="Each phase checks what exists first and redoes only what is missing or changed.">
        <Select
          selectedOption={phase}
          onChange={({ detail }) => setPhase(PHASES.find((p) => p.value === detail.selectedOption.value) ?? PHASES[0])}
          options={PHASES}
          ariaLabel="Phase"
        />
      </FormField>
    </ConfirmAction>
  );
}

// A delete of the cluster or a part of it: the name typed back, planned and sent through the same operation.
function ConfirmDelete({
  name,
  operation,
  header,
  action,
  onClose,
  children,
}: {
  name: string;
  operation: 'delete_cluster' | 'delete_hyperpod';
  header: string;
  action: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <ConfirmAction
      header={header}
      action={action}
      typeToConfirm={name}
      loadPlan={() => plan(operation, { name }, { query: { confirm: name } })}
      planDeps={[name]}
      planLabel="What the delete does"
      onClose={onClose}
      onConfirm={async () => {
        const { data } = await call<OperationAcceptedView>(operation, { name }, { query: { confirm: name } });
        navigate(`/operations/${encodeURIComponent(data.operation.id)}`);
      }}
    >
      <Box color="text-status-error">{children}</Box>
    </ConfirmAction>
  );
}

function DeleteCluster({ cluster, onClose }: { cluster: ClusterView; onClose: () => void }) {
  const name = cluster.name;
  return (
    <ConfirmDelete name={name} operation="delete_cluster" header={`Delete ${name}?`} action="Delete cluster" onClose={onClose}>
      {cluster.source === 'imported'
        ? `Launchpod deletes only what it made in ${name} and stops managing it; the EKS cluster you imported, and everything you made in it, stay.`
        : `Everything Launchpod created for ${name} is deleted: the HyperPod cluster and its nodes, the EKS control plane, its MLflow tracking server with its runs, the IAM roles and the network. Running jobs and endpoints stop. What Launchpod did not create, such as the data in the shared bucket, stays. This cannot be undone.`}
    </ConfirmDelete>
  );
}

function DeleteHyperPod({ cluster, onClose }: { cluster: ClusterView; onClose: () => void }) {
  const name = cluster.name;
  return (
    <ConfirmDelete name={name} operation="delete_hyperpod" header={`Delete the HyperPod cluster of ${name}?`} action="Delete HyperPod cluster" onClose={onClose}>
      {cluster.hyperpod.status === 'Failed'
        ? `The failed HyperPod cluster is deleted; the EKS control plane, its add-ons and storage stay, so HyperPod can be created again later.`
        : `The HyperPod cluster and its nodes are deleted, with every pod running on them; the EKS control plane, its add-ons and storage stay. This cannot be undone.`}
    </ConfirmDelete>
  );
}

export default function ClusterPage() {
  const { name = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const { activeCluster, setActiveCluster, can } = useSession();
  const [dialog, setDialog] = useState<'delete' | 'phase' | 'hyperpod' | null>(null);
  const { data: cluster, error, reload } = useFetch(() => api.cluster(name), [name], 10000);
  const tab = params.get('tab') ?? 'overview';

  const breadcrumbs = (
    <Breadcrumbs
      items={[
        { text: 'Clusters', href: '/clusters' },
        { text: name, href: `/clusters/${encodeURIComponent(name)}` },
      ]}
    />
  );

  return (
    <ContentLayout
      breadcrumbs={breadcrumbs}
      header={
        <Header
          variant="h1"
          description={cluster ? `${cluster.region} · ${cluster.source === 'imported' ? 'imported' : 'created by Launchpod'}${cluster.createdAt ? ` · ${formatTime(cluster.createdAt)}` : ''}` : undefined}
          info={name === activeCluster ? <Badge color="blue">Active</Badge> : undefined}
          actions={
            <SpaceBetween direction="horizontal" size="xs">
              <Button iconName="refresh" ariaLabel="Refresh cluster" onClick={() => void reload()} />
              <Button disabled={name === activeCluster || !cluster} onClick={() => setActiveCluster(name)}>
                Set as active
              </Button>
              <ButtonDropdown
                disabled={!cluster || !can('admin')}
                disabledReason={cluster ? 'Changing a cluster needs the admin role.' : undefined}
                onItemClick={({ detail }) => setDialog(detail.id as 'delete' | 'phase' | 'hyperpod')}
                items={[
                  { id: 'phase', text: 'Run a provisioning phase again' },
                  {
                    id: 'hyperpod',
                    text: 'Delete HyperPod cluster',
                    disabled: cluster?.hyperpod.status === 'NOT_CREATED',
                    disabledReason: 'This cluster has no HyperPod cluster.',
                  },
                  { id: 'delete', text: 'Delete cluster' },
                ]}
              >
                Actions
              </ButtonDropdown>
            </SpaceBetween>
          }
        >
          {name}
        </Header>
      }
    >
      <SpaceBetween size="l">
        <ErrorAlert error={error} />
        {cluster?.activeOperationId ? (
          <Box>
            An operation is in progress: <Link href={`/operations/${cluster.activeOperationId}`}>{cluster.activeOperationId}</Link>
          </Box>
        ) : null}
        {cluster ? (
          <Tabs
            activeTabId={tab}
            onChange={({ detail }) => setParams(detail.activeTabId === 'overview' ? {} : { tab: detail.activeTabId })}
            ariaLabel="Cluster sections"
            i18nStrings={{ scrollLeftAriaLabel: 'Scroll tabs left', scrollRightAriaLabel: 'Scroll tabs right' }}
            tabs={[
              { id: 'overview', label: 'Overview', content: <Overview cluster={cluster} /> },
              {
                id: 'dependencies',
                label: 'Dependencies',
                content: <DependenciesTab cluster={name} ready={cluster.eks.status === 'ACTIVE'} />,
              },
              {
                id: 'instance-groups',
                label: 'Instance groups',
                content: <InstanceGroupsTab cluster={name} region={cluster.region} ready={cluster.hyperpod.status !== 'NOT_CREATED'} />,
              },
              // ---- managed features and storage
              { id: 'features', label: 'Features', content: <FeaturesTab cluster={name} ready={cluster.eks.status === 'ACTIVE'} /> },
              { id: 'storage', label: 'Storage', content: <StorageTab cluster={name} ready={cluster.eks.status === 'ACTIVE'} /> },
              { id: 'jobs', label: 'Jobs', content: <JobsTab cluster={name} ready={cluster.hyperpod.status === 'InService'} /> },
              { id: 'spaces', label: 'Spaces', content: <SpacesTab cluster={name} ready={cluster.hyperpod.status === 'InService'} /> },
              { id: 'inference', label: 'Inference', content: <InferenceTab cluster={name} ready={cluster.eks.status === 'ACTIVE'} /> },
              { id: 'nodes', label: 'Nodes', content: <NodesTab cluster={name} /> },
              { id: 'notifications', label: 'Notifications', content: <NotificationsTab cluster={name} /> },
              { id: 'operations', label: 'Operations', content: <ClusterOperations name={name} /> },
            ]}
          />
        ) : error ? null : (
          <Spinner size="large" />
        )}
      </SpaceBetween>
      {dialog === 'delete' && cluster ? <DeleteCluster cluster={cluster} onClose={() => setDialog(null)} /> : null}
      {dialog === 'phase' ? <RunPhase name={name} onClose={() => setDialog(null)} /> : null}
      {dialog === 'hyperpod' && cluster ? <DeleteHyperPod cluster={cluster} onClose={() => setDialog(null)} /> : null}
    </ContentLayout>
  );
}
