// Operations, newest first: used by the operations page and the cluster page's Operations section. Each row says
// what, on which cluster, what it changes, how it stands, when it started, how long it took and who started it;
// cells wrap (no column leaves the card at 1280 px).

import { useCollection } from '@cloudscape-design/collection-hooks';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Header from '@cloudscape-design/components/header';
import Pagination from '@cloudscape-design/components/pagination';
import Table from '@cloudscape-design/components/table';
import type { ReactNode } from 'react';

import { formatDuration, formatTime, kindTitle } from '../lib/format';
import { operationSummary } from '../lib/operationSummary';
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
      wrapLines
      columnDefinitions={[
        {
          id: 'kind',
          header: 'Operation',
          isRowHeader: true,
          sortingField: 'kind',
          cell: (item) => (
            <>
              <Link href={`/operations/${item.id}`}>{kindTitle(item.kind)}</Link>
              <Box variant="small" display="block">
                <span style={{ whiteSpace: 'nowrap' }}>{item.id}</span>
              </Box>
            </>
          ),
        },
        ...(showCluster
          ? [{
              id: 'target',
              header: 'Cluster',
              sortingField: 'target',
              cell: (item: OperationView) => <Link href={`/clusters/${encodeURIComponent(item.target)}`}>{item.target}</Link>,
            }]
          : []),
        { id: 'summary', header: 'What it changes', cell: (item) => operationSummary(item) },
        {
          id: 'status',
          header: 'Status',
          sortingField: 'status',
          cell: (item) => {
            const current =
              item.phases.find((phase) => phase.status === 'RUNNING' || phase.status === 'FAILED') ??
              [...item.phases].reverse().find((phase) => phase.status === 'SUCCEEDED');
            const done = item.phases.filter((phase) => phase.status === 'SUCCEEDED' || phase.status === 'SKIPPED').length;
            const running = !TERMINAL.has(item.status) || item.status === 'FAILED';
            return (
              <>
                <Status value={item.status} />
                <Box variant="small" display="block">
                  {running && current ? `${current.title} · ` : ''}
                  {done}/{item.phases.length} phases{item.attempt > 1 ? ` · attempt ${item.attempt}` : ''}
                </Box>
              </>
            );
          },
        },
        { id: 'createdAt', header: 'Started', sortingField: 'createdAt', cell: (item) => formatTime(item.createdAt) },
        {
          id: 'duration',
          header: 'Duration',
          cell: (item) => formatDuration(item.createdAt, TERMINAL.has(item.status) ? item.updatedAt : null) || '-',
        },
        { id: 'createdBy', header: 'Started by', cell: (item) => item.createdBy ?? '-' },
      ]}
    />
  );
}
