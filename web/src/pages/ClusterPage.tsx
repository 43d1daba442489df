// One cluster: EKS and HyperPod status, and a section per capability (listed in the side navigation, lib/clusterSections).

import { useParams, useSearchParams } from 'react-router-dom';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import Header from '@cloudscape-design/components/header';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Spinner from '@cloudscape-design/components/spinner';
import Badge from '@cloudscape-design/components/badge';
import ButtonDropdown from '@cloudscape-design/components/button-dropdown';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import Select from '@cloudscape-design/components/select';
import { useState, type ReactNode } from 'react';

import Breadcrumbs from '../components/Breadcrumbs';
import { ConfirmOperation } from '../components/ConfirmAction';
import DependenciesTab from '../components/DependenciesTab';
import { CreationDiagnosis } from '../components/Diagnoses';
import FeaturesTab from '../components/FeaturesTab';
import StorageTab from '../components/StorageTab';
import JobsTab from '../components/JobsTab';
import SpacesTab from '../components/SpacesTab';
import InferenceTab from '../components/InferenceTab';
import ErrorAlert from '../components/ErrorAlert';
import PageLayout from '../components/PageLayout';
import SelectField from '../components/SelectField';
import MetricsCharts, { IdleCapacity } from '../components/MetricsCharts';
import InstanceGroupsTab from '../components/InstanceGroupsTab';
import NodesTab from '../components/NodesTab';
import NotificationsTab from '../components/NotificationsTab';
import Link from '../components/Link';
import OperationsTable from '../components/OperationsTable';
import Status from '../components/Status';
import Unbroken from '../components/Unbroken';
import { api } from '../lib/api';
import { clusterSection, clusterSectionHref, type ClusterSectionId } from '../lib/clusterSections';
import { byInstanceType, instanceTypeOption } from '../lib/instanceTypes';
import { formatTime } from '../lib/format';
import type { ClusterView } from '../lib/types';
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
            { label: 'Subnets', value: cluster.eks.subnetIds?.length ? <Unbroken text={cluster.eks.subnetIds.join(', ')} /> : '-' },
            { label: 'ARN', value: cluster.eks.arn ? <Box variant="code"><Unbroken text={cluster.eks.arn} /></Box> : '-' },
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
            { label: 'ARN', value: cluster.hyperpod.arn ? <Box variant="code"><Unbroken text={cluster.hyperpod.arn} /></Box> : '-' },
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
  const [phase, setPhase] = useState(PHASES[1]);
  return (
    <ConfirmOperation
      header={`Run a provisioning phase of ${name} again`}
      action={`Run ${phase.label}`}
      operation="run_cluster_phase"
      params={{ name, phase: phase.value }}
      options={{ body: {} }}
      planLabel="What it would do"
      onClose={onClose}
    >
      <SelectField
        label="Phase"
        description="Each phase checks what exists first and redoes only what is missing or changed."
        value={phase.value}
        options={PHASES}
        onChange={(value) => setPhase(PHASES.find((p) => p.value === value) ?? PHASES[0])}
      />
    </ConfirmOperation>
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
  return (
    <ConfirmOperation
      header={header}
      action={action}
      typeToConfirm={name}
      operation={operation}
      params={{ name }}
      options={{ query: { confirm: name } }}
      planLabel="What the delete does"
      onClose={onClose}
    >
      <Box color="text-status-error">{children}</Box>
    </ConfirmOperation>
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

// HyperPod for a cluster made without it (the wizard's "EKS control plane only"): one instance group in a zone of the
// control plane, planned by the API's dry run before anything is created. More groups are added from Instance groups.
function CreateHyperPod({ name, onClose }: { name: string; onClose: () => void }) {
  const zones = useFetch(() => api.availabilityZones(), []);
  const [zone, setZone] = useState('');
  const [group, setGroup] = useState('gpu');
  const [type, setType] = useState('');
  const [count, setCount] = useState('1');
  const chosenZone = zone || zones.data?.items[0]?.name || '';
  const types = useFetch(() => api.instanceTypes(chosenZone || undefined), [chosenZone]);
  const offered = [...(types.data?.items ?? [])].filter((t) => t.availabilityZones.includes(chosenZone)).sort(byInstanceType);
  const fallback = offered.find((t) => t.gpus) ?? offered[0]; // a GPU type first: what HyperPod clusters are for
  const chosenType = type && offered.some((t) => t.instanceType === type) ? type : fallback?.instanceType ?? '';
  const body = {
    availabilityZone: chosenZone,
    instanceGroups: [{ instanceGroup: group, instanceType: chosenType, instanceCount: Number(count) }],
  };
  return (
    <ConfirmOperation
      header={`Create the HyperPod cluster of ${name}`}
      action="Create HyperPod cluster"
      ready={Boolean(chosenZone && chosenType && group && count)}
      operation="create_hyperpod"
      params={{ name }}
      options={{ body }}
      planLabel="What it would do"
      onClose={onClose}
    >
      <SpaceBetween size="m">
        <FormField label="Availability zone" description="HyperPod's nodes run in one zone of the control plane's.">
          <Select
            selectedOption={chosenZone ? { value: chosenZone, label: chosenZone } : null}
            onChange={({ detail }) => setZone(detail.selectedOption.value ?? '')}
            options={(zones.data?.items ?? []).map((z) => ({ value: z.name, label: z.name }))}
            statusType={zones.loading ? 'loading' : 'finished'}
            ariaLabel="Availability zone"
          />
        </FormField>
        <FormField label="Group name" description="More groups can be added afterwards, from Instance groups.">
          <Input value={group} onChange={({ detail }) => setGroup(detail.value)} ariaLabel="Group name" />
        </FormField>
        <FormField label="Instance type">
          <Select
            selectedOption={chosenType ? instanceTypeOption(offered.find((t) => t.instanceType === chosenType)!) : null}
            onChange={({ detail }) => setType(detail.selectedOption.value ?? '')}
            options={offered.map(instanceTypeOption)}
            statusType={types.loading ? 'loading' : 'finished'}
            empty={`No HyperPod instance type is offered in ${chosenZone}`}
            filteringType="auto"
            ariaLabel="Instance type"
          />
        </FormField>
        <FormField label="Instance count">
          <Input type="number" value={count} onChange={({ detail }) => setCount(detail.value)} ariaLabel="Instance count" />
        </FormField>
      </SpaceBetween>
    </ConfirmOperation>
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

// What each section shows; a section of lib/clusterSections without its content here does not type-check.
function sections(cluster: ClusterView): Record<ClusterSectionId, ReactNode> {
  const name = cluster.name;
  const eksActive = cluster.eks.status === 'ACTIVE';
  const inService = cluster.hyperpod.status === 'InService';
  return {
    overview: <Overview cluster={cluster} />,
    'instance-groups': <InstanceGroupsTab cluster={name} region={cluster.region} ready={cluster.hyperpod.status !== 'NOT_CREATED'} />,
    nodes: <NodesTab cluster={name} />,
    dependencies: <DependenciesTab cluster={name} ready={eksActive} />,
    features: <FeaturesTab cluster={name} ready={eksActive} />,
    storage: <StorageTab cluster={name} ready={eksActive} />,
    jobs: <JobsTab cluster={name} ready={inService} />,
    spaces: <SpacesTab cluster={name} ready={inService} />,
    inference: <InferenceTab cluster={name} ready={eksActive} />,
    notifications: <NotificationsTab cluster={name} />,
    operations: <ClusterOperations name={name} />,
  };
}

export default function ClusterPage() {
  const { name = '' } = useParams();
  const [params] = useSearchParams();
  const { activeCluster, setActiveCluster, can } = useSession();
  const [dialog, setDialog] = useState<'delete' | 'phase' | 'hyperpod' | 'create-hyperpod' | null>(null);
  const { data: cluster, error, reload } = useFetch(() => api.cluster(name), [name], 10000);
  const section = clusterSection(params.get('tab'));

  const breadcrumbs = (
    <Breadcrumbs
      items={[
        { text: 'Clusters', href: '/clusters' },
        { text: name, href: `/clusters/${encodeURIComponent(name)}` },
        ...(section.id === 'overview' ? [] : [{ text: section.label, href: clusterSectionHref(name, section.id) }]),
      ]}
    />
  );

  return (
    <PageLayout
      breadcrumbs={breadcrumbs}
      title={name}
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
            onItemClick={({ detail }) => setDialog(detail.id as 'delete' | 'phase' | 'hyperpod' | 'create-hyperpod')}
            items={[
              { id: 'phase', text: 'Run a provisioning phase again' },
              {
                id: 'create-hyperpod',
                text: 'Create HyperPod cluster',
                disabled: cluster?.hyperpod.status !== 'NOT_CREATED',
                disabledReason: 'This cluster has its HyperPod cluster.',
              },
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
      <SpaceBetween size="l">
        <ErrorAlert error={error} />
        {cluster?.activeOperationId ? (
          <Box>
            An operation is in progress: <Link href={`/operations/${cluster.activeOperationId}`}>{cluster.activeOperationId}</Link>
          </Box>
        ) : null}
        {cluster ? (
          <div role="region" aria-label={section.label} data-section={section.id}>
            {sections(cluster)[section.id]}
          </div>
        ) : error ? null : (
          <Spinner size="large" />
        )}
      </SpaceBetween>
      {dialog === 'delete' && cluster ? <DeleteCluster cluster={cluster} onClose={() => setDialog(null)} /> : null}
      {dialog === 'phase' ? <RunPhase name={name} onClose={() => setDialog(null)} /> : null}
      {dialog === 'hyperpod' && cluster ? <DeleteHyperPod cluster={cluster} onClose={() => setDialog(null)} /> : null}
      {dialog === 'create-hyperpod' ? <CreateHyperPod name={name} onClose={() => setDialog(null)} /> : null}
    </PageLayout>
  );
}
