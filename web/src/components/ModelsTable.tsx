// The models downloaded into the cluster's S3 storage (under models/), listed on the Storage tab.

import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Header from '@cloudscape-design/components/header';
import Table from '@cloudscape-design/components/table';

import { formatBytes, modelsApi } from '../lib/models';
import { useFetch } from '../lib/useFetch';
import ErrorAlert from './ErrorAlert';

export default function ModelsTable({ cluster }: { cluster: string }) {
  const { data, error, loading, reload } = useFetch(() => modelsApi.list(cluster), [cluster]);
  return (
    <div data-testid="models-table">
      <Table
        variant="container"
        wrapLines
        items={data?.items ?? []}
        loading={loading && !data}
        loadingText="Loading models"
        trackBy="path"
        empty={
          <Box textAlign="center">
            No models downloaded. Download one from the Inference tab, or put it under models/ of an S3 storage.
          </Box>
        }
        header={
          <Header
            variant="h2"
            counter={data ? `(${data.items.length})` : undefined}
            description="Model folders under models/ of each S3 storage"
            actions={<Button iconName="refresh" ariaLabel="Refresh models" onClick={() => void reload()} />}
          >
            Models
          </Header>
        }
        columnDefinitions={[
          { id: 'repoId', header: 'Model', isRowHeader: true, cell: (item) => item.repoId },
          { id: 'storage', header: 'Storage', cell: (item) => item.storage },
          { id: 'path', header: 'Location', cell: (item) => item.path },
          { id: 'files', header: 'Files', cell: (item) => item.files },
          { id: 'size', header: 'Size', cell: (item) => formatBytes(item.sizeBytes) },
        ]}
        footer={
          error ? (
            <ErrorAlert error={error} />
          ) : data?.truncated ? (
            <Box>More objects than one listing returns; some models may be missing.</Box>
          ) : undefined
        }
      />
    </div>
  );
}
