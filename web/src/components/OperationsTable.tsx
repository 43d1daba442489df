// Operations, newest first: used by the operations page and the cluster page's Operations tab.

import { useCollection } from '@cloudscape-design/collection-hooks';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Header from '@cloudscape-design/components/header';
import Pagination from '@cloudscape-design/components/pagination';
import Table from '@cloudscape-design/components/table';
import type { ReactNode } from 'react';

import { formatDuration, formatTime, kindTitle } from '../lib/format';
import { TERMINAL, type OperationView } from '../lib/types';
import Link from './Link';
import Status from './Status';


export default function OperationsTable({
  operations,
  loading,
  onRefresh,
  title = 'Operations',
  filter,
  variant = 'full-page',
  showCluster = true,
}: {
  operations: OperationView[];
  loading: boolean;
  onRefresh: () => void;
  title?: string;
  filter?: ReactNode;
  variant?: 'full-page' | 'container';
  showCluster?: boolean;
}) {
  const { items, collectionProps, paginationProps } = useCollection(operations, {
    sorting: { defaultState: { sortingColumn: { sortingField: 'createdAt' }, isDescending: true } },
    pagination: { pageSize: 25 },
  });
  return (
    <Table
      {...collectionProps}
      variant={variant}
      items={items}
      loading={loading}
      loadingText="Loading operations"
      trackBy="id"
      empty={<Box textAlign="center">No operations yet. Every change to a cluster is recorded here.</Box>}
      header={
        <Header
          variant={variant === 'full-page' ? 'awsui-h1-sticky' : 'h2'}
          counter={`(${operations.length})`}
          actions={<Button iconName="refresh" ariaLabel="Refresh operations" onClick={onRefresh} />}
          description="Each mutation becomes an operation before anything touches AWS; open one to follow its phases."
        >
          {title}
        </Header>
      }
      filter={filter}
      pagination={<Pagination {...paginationProps} ariaLabels={{ nextPageLabel: 'Next page', previousPageLabel: 'Previous page', pageLabel: (n) => `Page ${n}` }} />}
      columnDefinitions={[
        { id: 'id', header: 'Operation', isRowHeader: true, cell: (item) => <Link href={`/operations/${item.id}`}>{item.id}</Link> },
        { id: 'kind', header: 'Kind', sortingField: 'kind', cell: (item) => kindTitle(item.kind) },
        ...(showCluster
          ? [{
              id: 'target',
              header: 'Cluster',
              sortingField: 'target',
              cell: (item: OperationView) => <Link href={`/clusters/${encodeURIComponent(item.target)}`}>{item.target}</Link>,
            }]
          : []),
        { id: 'status', header: 'Status', sortingField: 'status', cell: (item) => <Status value={item.status} /> },
        {
          id: 'phase',
          header: 'Phase',
          cell: (item) => {
            const current =
              item.phases.find((phase) => phase.status === 'RUNNING' || phase.status === 'FAILED') ??
              [...item.phases].reverse().find((phase) => phase.status === 'SUCCEEDED');
            const done = item.phases.filter((phase) => phase.status === 'SUCCEEDED' || phase.status === 'SKIPPED').length;
            return `${current?.title ?? '-'} (${done}/${item.phases.length})`;
          },
        },
        { id: 'createdAt', header: 'Started', sortingField: 'createdAt', cell: (item) => formatTime(item.createdAt) },
        {
          id: 'duration',
          header: 'Duration',
          cell: (item) => formatDuration(item.createdAt, TERMINAL.has(item.status) ? item.updatedAt : null) || '-',
        },
        { id: 'attempt', header: 'Attempt', cell: (item) => item.attempt },
        { id: 'createdBy', header: 'Started by', cell: (item) => item.createdBy ?? '-' },
      ]}
    />
  );
}
