// The cluster's storage: list, add (the shared bucket through Mountpoint for S3, or FSx for Lustre), browse
// an S3 storage's objects folder by folder, and delete (the data in S3 or FSx is kept).

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import Form from '@cloudscape-design/components/form';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import Modal from '@cloudscape-design/components/modal';
import SegmentedControl from '@cloudscape-design/components/segmented-control';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';

import { ApiError, api, plan } from '../lib/api';
import type { StorageView } from '../lib/types';
import { useAction } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import { useAnswer } from '../useAnswer';
import ErrorAlert from './ErrorAlert';
import ListTable from './ListTable';
import ModelsTable from './ModelsTable';
import { DryRunPlan } from './PlanSteps';
import Status from './Status';

function Browser({ cluster, storage, onClose }: { cluster: string; storage: StorageView; onClose: () => void }) {
  const [prefix, setPrefix] = useState('');
  const { data, error, loading } = useFetch(
    () => api.browseStorage(cluster, storage.storageName, prefix || undefined),
    [cluster, storage.storageName, prefix],
  );
  const rows = [
    ...(data?.prefixes ?? []).map((p) => ({ key: p, size: null as number | null, folder: true })),
    ...(data?.objects ?? []).map((o) => ({ key: o.key, size: o.size as number | null, folder: false })),
  ];
  return (
    <Table
      variant="container"
      items={rows}
      loading={loading && !data}
      loadingText="Listing objects"
      trackBy="key"
      empty={<Box textAlign="center">No objects under this prefix.</Box>}
      header={
        <Header
          variant="h2"
          description={data ? `s3://${data.bucket}/${data.prefix}` : storage.source}
          actions={
            <SpaceBetween direction="horizontal" size="xs">
              <Button disabled={!prefix} onClick={() => setPrefix(prefix.split('/').slice(0, -1).join('/'))}>
                Up
              </Button>
              <Button onClick={onClose}>Close</Button>
            </SpaceBetween>
          }
        >
          Browse {storage.storageName}
        </Header>
      }
      columnDefinitions={[
        {
          id: 'key',
          header: 'Key',
          isRowHeader: true,
          cell: (row) =>
            row.folder ? (
              <Button variant="inline-link" onClick={() => setPrefix(row.key.replace(/\/$/, ''))}>
                {row.key}
              </Button>
            ) : (
              row.key
            ),
        },
        { id: 'size', header: 'Size (bytes)', cell: (row) => (row.size === null ? 'folder' : row.size) },
      ]}
      footer={error ? <ErrorAlert error={error} /> : undefined}
    />
  );
}

function AddStorage({ cluster, onAdded }: { cluster: string; onAdded: () => void }) {
  const follow = useAnswer();
  const [kind, setKind] = useState<'s3' | 'fsx'>('s3');
  const [storageName, setStorageName] = useState('');
  const [namespace, setNamespace] = useState('default');
  const [prefix, setPrefix] = useState('');
  const [fileSystemId, setFileSystemId] = useState('');
  const { busy, error: failure, run } = useAction();
  const fields = failure instanceof ApiError ? failure.fieldErrors() : {};

  const submit = () =>
    run(async () => {
      const body: Record<string, string> = { kind, storageName, namespace };
      if (kind === 's3' && prefix) body.prefix = prefix;
      if (kind === 'fsx') body.fileSystemId = fileSystemId;
      const { data } = await api.configureStorage(cluster, body);
      follow(data, onAdded);
    });

  return (
    <Container header={<Header variant="h2">Add storage</Header>}>
      <Form
        actions={
          <Button variant="primary" loading={busy} disabled={!storageName} onClick={() => void submit()}>
            Add storage
          </Button>
        }
        errorText={failure && !Object.keys(fields).length ? (failure as Error).message : undefined}
      >
        <SpaceBetween size="s">
          <SegmentedControl
            selectedId={kind}
            label="Kind"
            onChange={({ detail }) => setKind(detail.selectedId as 's3' | 'fsx')}
            options={[
              { id: 's3', text: 'S3 (Mountpoint)' },
              { id: 'fsx', text: 'FSx for Lustre' },
            ]}
          />
          <FormField label="Storage name" description="Names the PersistentVolumeClaim and its volume" errorText={fields.storageName}>
            <Input value={storageName} onChange={({ detail }) => setStorageName(detail.value)} placeholder="datasets" />
          </FormField>
          <FormField label="Namespace" errorText={fields.namespace}>
            <Input value={namespace} onChange={({ detail }) => setNamespace(detail.value)} />
          </FormField>
          {kind === 's3' ? (
            <FormField label="Prefix (optional)" description="Mount this prefix of the shared bucket" errorText={fields.prefix}>
              <Input value={prefix} onChange={({ detail }) => setPrefix(detail.value)} placeholder="datasets/mnist" />
            </FormField>
          ) : (
            <FormField label="File system id" errorText={fields.fileSystemId}>
              <Input value={fileSystemId} onChange={({ detail }) => setFileSystemId(detail.value)} placeholder="fs-0123456789abcdef0" />
            </FormField>
          )}
        </SpaceBetween>
      </Form>
    </Container>
  );
}

export default function StorageTab({ cluster, ready }: { cluster: string; ready: boolean }) {
  const { can, notify } = useSession();
  const { data, error, loading, reload } = useFetch(() => api.storage(cluster), [cluster]);
  const [browsing, setBrowsing] = useState<StorageView | null>(null);
  const [deleting, setDeleting] = useState<StorageView | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);

  async function remove(item: StorageView) {
    setActionError(null);
    try {
      const { data: answer } = await api.deleteStorage(cluster, item.storageName);
      // NOOP: someone deleted it since the list was read; the answer says so.
      notify(
        'deleted' in answer
          ? { type: 'success', header: `Deleted ${item.storageName}`, content: answer.deleted.join(', ') }
          : { type: 'info', header: `${item.storageName} was already gone`, content: answer.message },
      );
      void reload();
    } catch (caught) {
      setActionError(caught);
    } finally {
      setDeleting(null);
    }
  }

  if (!ready) return <Box>The EKS control plane must be ACTIVE first.</Box>;
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={error} />
      <ErrorAlert error={actionError} onDismiss={() => setActionError(null)} />
      <div data-testid="storage-table">
        <ListTable what="storage" fetched={{ data, loading, reload }}
          trackBy="storageName"
          empty="No storage configured."
          columnDefinitions={[
            { id: 'name', header: 'Name', isRowHeader: true, cell: (item) => item.storageName },
            { id: 'namespace', header: 'Namespace', cell: (item) => item.namespace },
            { id: 'kind', header: 'Kind', cell: (item) => (item.kind === 's3' ? 'S3' : 'FSx for Lustre') },
            { id: 'source', header: 'Source', cell: (item) => item.source },
            { id: 'status', header: 'Claim', minWidth: 110, cell: (item) => <Status value={item.status} /> },
            {
              id: 'actions',
              header: 'Actions',
              cell: (item) => (
                <SpaceBetween direction="horizontal" size="xs">
                  <Button variant="inline-link" disabled={item.kind !== 's3'} onClick={() => setBrowsing(item)}>
                    Browse
                  </Button>
                  <Button variant="inline-link" disabled={!can('admin')} onClick={() => setDeleting(item)} ariaLabel={`Delete ${item.storageName}`}>
                    Delete
                  </Button>
                </SpaceBetween>
              ),
            },
          ]}
        />
      </div>
      {browsing ? (
        <div data-testid="storage-browser">
          <Browser cluster={cluster} storage={browsing} onClose={() => setBrowsing(null)} />
        </div>
      ) : null}
      <ModelsTable cluster={cluster} />
      {can('admin') ? <AddStorage cluster={cluster} onAdded={() => void reload()} /> : null}
      <Modal
        visible={deleting !== null}
        onDismiss={() => setDeleting(null)}
        header={`Delete ${deleting?.storageName ?? ''}?`}
        footer={
          <Box float="right">
            <SpaceBetween direction="horizontal" size="xs">
              <Button onClick={() => setDeleting(null)}>Cancel</Button>
              <Button variant="primary" onClick={() => deleting && void remove(deleting)}>
                Delete
              </Button>
            </SpaceBetween>
          </Box>
        }
      >
        {deleting ? (
          <DryRunPlan
            load={() => plan('delete_storage', { name: cluster, storageName: deleting.storageName })}
            deps={[cluster, deleting.storageName]}
            label="What the delete does"
            fallback={`The PersistentVolumeClaim and PersistentVolume are removed; the data in ${deleting.source} is kept.`}
          />
        ) : null}
      </Modal>
    </SpaceBetween>
  );
}
