// The create-cluster wizard's last step: every choice by part, each part with an Edit that goes back to its
// step, the instance groups with their fallback types, minimum, patching and image, and what happens next.

import Alert from '@cloudscape-design/components/alert';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import Header from '@cloudscape-design/components/header';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';

import { DEEP_HEALTH_CHECKS, type StorageChoices } from '../lib/createCluster';
import { PATCHING } from '../lib/groupDepth';
import ErrorAlert from './ErrorAlert';
import type { GroupRow } from './InstanceGroupsEditor';

export type ReviewPart = 'name' | 'placement' | 'hyperpod' | 'storage';

export interface ReviewedChoices {
  name: string;
  region: string;
  zone: string;
  secondZone: string;
  vpcCidr: string;
  kubernetesVersion: string;
  hyperpod: boolean;
  instanceGroups: GroupRow[];
  nodeRecovery: boolean;
  continuous: boolean;
  includeOptionalDependencies: boolean;
  storage: StorageChoices | null;
}

interface Props {
  form: ReviewedChoices;
  optionalDependencies: string;
  defaultCidr: string;
  onEdit: (part: ReviewPart) => void;
  submitError: unknown;
  onDismissError: () => void;
}

function whatHappens(form: ReviewedChoices): string {
  const zones = `${form.zone || 'the zone'} and ${form.secondZone || 'a second zone'}`;
  if (!form.hyperpod)
    return (
      `Launchpod creates the network, IAM role and EKS control plane in ${zones}, then its OIDC provider, access entry and ` +
      'core add-ons. No HyperPod cluster is created.'
    );
  const instances = form.instanceGroups.reduce((total, group) => total + (Number(group.instanceCount) || 0), 0);
  const storage = form.storage;
  return (
    `One operation, phase by phase: the network, IAM role and EKS control plane in ${zones} (HyperPod's lifecycle ` +
    `scripts and execution role are made meanwhile), then the dependencies${form.includeOptionalDependencies ? ', optional ones included,' : ''} ` +
    `and the HyperPod cluster with ${instances} instance${instances === 1 ? '' : 's'} and ${form.nodeRecovery ? 'automatic' : 'no'} node recovery` +
    `${storage ? `, then the ${storage.kind === 's3' ? 'S3' : 'FSx'} volume claim ${storage.storageName}` : ''}. The next page follows every phase.`
  );
}

export default function CreateClusterReview({ form, optionalDependencies, defaultCidr, onEdit, submitError, onDismissError }: Props) {
  const edit = (part: ReviewPart, what: string) => (
    <Button ariaLabel={`Edit ${what}`} onClick={() => onEdit(part)}>
      Edit
    </Button>
  );
  const instances = form.instanceGroups.reduce((total, group) => total + (Number(group.instanceCount) || 0), 0);
  const storage = form.storage;
  return (
    <SpaceBetween size="l">
      <Container header={<Header variant="h2" actions={edit('name', 'cluster')}>Cluster</Header>}>
        <KeyValuePairs columns={2} items={[{ label: 'Name', value: form.name || '-' }, { label: 'Kubernetes version', value: form.kubernetesVersion || "the API's default" }]} />
      </Container>
      <Container header={<Header variant="h2" actions={edit('placement', 'placement and network')}>Placement and network</Header>}>
        <KeyValuePairs
          columns={3}
          items={[
            { label: 'Region', value: form.region || '-' },
            { label: 'Availability zone', value: form.zone || '-' },
            { label: 'Control plane zones', value: [form.zone, form.secondZone].filter(Boolean).join(', ') || '-' },
            { label: 'VPC CIDR', value: form.vpcCidr || `${defaultCidr} (default)` },
          ]}
        />
      </Container>
      <Container header={<Header variant="h2" actions={edit('hyperpod', 'HyperPod')}>HyperPod</Header>}>
        <KeyValuePairs
          columns={4}
          items={
            form.hyperpod
              ? [
                  { label: 'HyperPod cluster', value: `Created in ${form.zone || '-'}` },
                  { label: 'Instances', value: `${instances} in ${form.instanceGroups.length} group${form.instanceGroups.length === 1 ? '' : 's'}` },
                  { label: 'Node recovery', value: form.nodeRecovery ? 'Automatic' : 'None' },
                  { label: 'Node provisioning', value: form.continuous ? 'Continuous' : 'All at once' },
                  { label: 'Optional dependencies', value: form.includeOptionalDependencies ? optionalDependencies : 'Not installed' },
                ]
              : [{ label: 'HyperPod cluster', value: 'Not created now' }]
          }
        />
      </Container>
      {form.hyperpod ? (
        <Table
          variant="container"
          wrapLines
          // each column at least as wide as its longest word, so none breaks mid-word; the table scrolls instead
          header={
            <Header variant="h2" counter={`(${form.instanceGroups.length})`}>
              Instance groups
            </Header>
          }
          items={form.instanceGroups}
          trackBy="id"
          columnDefinitions={[
            { id: 'name', header: 'Group', minWidth: 110, cell: (group) => group.name },
            {
              id: 'type',
              header: 'Instance types',
              minWidth: 160,
              cell: (group) => [group.instanceType || '-', ...(group.fallbackTypes ?? [])].join(', then '),
            },
            { id: 'count', header: 'Count', minWidth: 100, cell: (group) => (group.minInstanceCount?.trim() ? `${group.instanceCount} (min ${group.minInstanceCount})` : group.instanceCount) },
            { id: 'threads', header: 'Threads per core', minWidth: 100, cell: (group) => group.threadsPerCore },
            { id: 'ebs', header: 'EBS volume', minWidth: 110, cell: (group) => `${group.ebsVolumeGb} GiB` },
            {
              id: 'checks',
              header: 'Deep health checks',
              minWidth: 170,
              cell: (group) => DEEP_HEALTH_CHECKS.filter((check) => group.deepHealthChecks[check]).join(', ') || 'Off',
            },
            { id: 'patching', header: 'Automatic patching', minWidth: 120, cell: (group) => (group.patching ? PATCHING[group.patching].label : 'Off') },
            { id: 'image', header: 'Image release', minWidth: 110, cell: (group) => group.imageReleaseVersion?.trim() || 'The latest' },
          ]}
        />
      ) : null}
      <Container header={<Header variant="h2" actions={edit('storage', 'storage')}>Storage</Header>}>
        {storage ? (
          <KeyValuePairs
            columns={3}
            items={[
              { label: 'Source', value: storage.kind === 's3' ? 'Amazon S3 (Mountpoint)' : 'FSx for Lustre' },
              { label: 'Claim', value: `${storage.namespace || 'default'}/${storage.storageName}` },
              storage.kind === 's3'
                ? { label: 'Prefix', value: storage.prefix || 'The whole bucket' }
                : { label: 'File system id', value: storage.fileSystemId },
            ]}
          />
        ) : (
          <KeyValuePairs columns={1} items={[{ label: 'Storage', value: 'None' }]} />
        )}
      </Container>
      <Alert type="info" header="What happens now">
        {whatHappens(form)}
      </Alert>
      <ErrorAlert error={submitError} onDismiss={onDismissError} />
    </SpaceBetween>
  );
}
