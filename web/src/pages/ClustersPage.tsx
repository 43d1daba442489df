// Clusters: EKS and HyperPod status side by side, and the active cluster.

import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useCollection } from '@cloudscape-design/collection-hooks';
import Badge from '@cloudscape-design/components/badge';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Header from '@cloudscape-design/components/header';
import Pagination from '@cloudscape-design/components/pagination';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';
import TextFilter from '@cloudscape-design/components/text-filter';

import { ConfirmOperation } from '../components/ConfirmAction';
import ErrorAlert from '../components/ErrorAlert';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import Link from '../components/Link';
import Status from '../components/Status';
import { api } from '../lib/api';
import { formatTime, statusLabel } from '../lib/format';
import type { ClusterView } from '../lib/types';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';

function Empty({ canCreate }: { canCreate: boolean }) {
  const navigate = useNavigate();
  return (
    <Box textAlign="center" color="inherit">
      <SpaceBetween size="xxs">
        <b>No clusters</b>
        <Box variant="p" color="inherit">Create the EKS control plane of a HyperPod cluster to get started.</Box>
      </SpaceBetween>
      {canCreate ? <Button onClick={() => navigate('/clusters/create')}>Create cluster</Button> : null}
    </Box>
  );
}

const NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9])*$/;

// An EKS cluster made outside Launchpod: Launchpod's role gets an access entry, the API is reached, and the
// cluster is listed as imported. The plan says which of those it would do.
function ImportCluster({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const valid = name.length <= 63 && NAME.test(name);
  return (
    <ConfirmOperation
      header="Import an EKS cluster"
      action="Import"
      ready={valid}
      operation="import_cluster"
      params={{}}
      options={{ body: { name } }}
      planLabel="What the import does"
      onClose={onClose}
    >
      <FormField
        label="EKS cluster name"
        description="A cluster in this account and region whose authentication mode is API or API_AND_CONFIG_MAP."
        errorText={name && !valid ? '1-63 letters, digits and hyphens; starts and ends with a letter or digit.' : undefined}
      >
        <Input value={name} onChange={({ detail }) => setName(detail.value.trim())} ariaLabel="EKS cluster name" placeholder="my-eks-cluster" />
      </FormField>
    </ConfirmOperation>
  );
}

export default function ClustersPage() {
  const navigate = useNavigate();
  const { activeCluster, setActiveCluster, can } = useSession();
  const { data, error, loading, reload } = useFetch(() => api.clusters(), [], 10000);
  const [selected, setSelected] = useState<ClusterView[]>([]);
  const [importing, setImporting] = useState(false);
  const clusters = data?.items ?? [];

  const { items, collectionProps, filterProps, paginationProps, filteredItemsCount } = useCollection(clusters, {
    filtering: {
      empty: <Empty canCreate={can('admin')} />,
      noMatch: <Box textAlign="center">No cluster matches the filter.</Box>,
      filteringFunction: (item, text) => item.name.toLowerCase().includes(text.toLowerCase()),
    },
    sorting: { defaultState: { sortingColumn: { sortingField: 'name' } } },
    pagination: { pageSize: 20 },
    selection: { keepSelection: false, trackBy: 'name' },
  });

  const choice = selected[0];
  return (
    <SpaceBetween size="m">
        <ErrorAlert error={error} />
        <Table
          wrapLines
          {...collectionProps}
          selectionType="single"
          selectedItems={selected}
          onSelectionChange={({ detail }) => setSelected(detail.selectedItems)}
          trackBy="name"
          loading={loading && !data}
          loadingText="Loading clusters"
          items={items}
          variant="full-page"
          ariaLabels={{
            selectionGroupLabel: 'Cluster selection',
            itemSelectionLabel: (_, item) => `Select ${item.name}`,
            allItemsSelectionLabel: () => 'Select all',
          }}
          header={
            <Header
              variant="awsui-h1-sticky"
              counter={data ? `(${clusters.length})` : undefined}
              description="EKS control planes and their HyperPod clusters, with the status AWS reports. The active cluster is the one you and your agents work on by default."
              actions={
                <SpaceBetween direction="horizontal" size="xs">
                  <Button iconName="refresh" ariaLabel="Refresh clusters" onClick={() => void reload()} />
                  <Button
                    disabled={!choice || choice.name === activeCluster}
                    onClick={() => choice && setActiveCluster(choice.name)}
                  >
                    Set as active
                  </Button>
                  <Button disabled={!choice} onClick={() => choice && navigate(`/operations?cluster=${encodeURIComponent(choice.name)}`)}>
                    View operations
                  </Button>
                  <Button
                    disabled={!can('admin')}
                    disabledReason="Importing clusters needs the admin role."
                    onClick={() => setImporting(true)}
                  >
                    Import cluster
                  </Button>
                  <Button
                    variant="primary"
                    disabled={!can('admin')}
                    disabledReason="Creating clusters needs the admin role."
                    onClick={() => navigate('/clusters/create')}
                  >
                    Create cluster
                  </Button>
                </SpaceBetween>
              }
            >
              Clusters
            </Header>
          }
          filter={
            <TextFilter
              {...filterProps}
              filteringPlaceholder="Find clusters"
              filteringAriaLabel="Filter clusters"
              countText={`${filteredItemsCount ?? 0} matches`}
            />
          }
          pagination={<Pagination {...paginationProps} ariaLabels={{ nextPageLabel: 'Next page', previousPageLabel: 'Previous page', pageLabel: (n) => `Page ${n}` }} />}
          columnDefinitions={[
            {
              id: 'name',
              header: 'Name',
              sortingField: 'name',
              isRowHeader: true,
              cell: (item) => (
                <SpaceBetween direction="horizontal" size="xs">
                  <Link href={`/clusters/${encodeURIComponent(item.name)}`}>{item.name}</Link>
                  {item.name === activeCluster ? <Badge color="blue">Active</Badge> : null}
                </SpaceBetween>
              ),
            },
            {
              id: 'eks',
              header: 'EKS control plane',
              sortingComparator: (a, b) => a.eks.status.localeCompare(b.eks.status),
              cell: (item) => (
                <Status value={item.eks.status} label={`${statusLabel(item.eks.status)}${item.eks.version ? ` · ${item.eks.version}` : ''}`} />
              ),
            },
            {
              id: 'hyperpod',
              header: 'HyperPod cluster',
              sortingComparator: (a, b) => a.hyperpod.status.localeCompare(b.hyperpod.status),
              cell: (item) => <Status value={item.hyperpod.status} />,
            },
            {
              id: 'operation',
              header: 'In progress',
              cell: (item) =>
                item.activeOperationId ? (
                  <Link href={`/operations/${item.activeOperationId}`}>{item.activeOperationId}</Link>
                ) : (
                  '-'
                ),
            },
            { id: 'region', header: 'Region', sortingField: 'region', cell: (item) => item.region },
            { id: 'created', header: 'Created', sortingField: 'createdAt', cell: (item) => formatTime(item.createdAt) },
          ]}
        />
        {importing ? <ImportCluster onClose={() => setImporting(false)} /> : null}
    </SpaceBetween>
  );
}
