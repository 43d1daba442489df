// The models downloaded into the cluster's S3 storage (under models/), listed on the Storage tab, and the
// download of a Hugging Face model or dataset into one of them.

import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';

import { api, plan } from '../lib/api';
import { formatBytes, modelsApi } from '../lib/models';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import ConfirmAction from './ConfirmAction';
import ErrorAlert from './ErrorAlert';
import ListTable from './ListTable';
import SelectField from './SelectField';

// Hugging Face repo ids: <owner>/<name> of letters, digits, '-', '_' and '.'.
const REPO = /^[\w.-]+\/[\w.-]+$/;

function DownloadModel({ cluster, onClose }: { cluster: string; onClose: () => void }) {
  const navigate = useNavigate();
  const storage = useFetch(() => api.storage(cluster), [cluster]);
  const options = (storage.data?.items ?? [])
    .filter((s) => s.kind === 's3')
    .map((s) => ({ value: s.storageName, label: s.storageName, description: s.source }));
  const [repoId, setRepoId] = useState('');
  const [revision, setRevision] = useState('main');
  const [chosen, setChosen] = useState('');
  const [hfToken, setHfToken] = useState('');
  const target = chosen || options[0]?.value || '';
  const valid = REPO.test(repoId) && Boolean(target) && Boolean(revision);
  const body = { repoId, storageName: target, revision, ...(hfToken ? { hfToken } : {}) };
  return (
    <ConfirmAction
      header="Download a model"
      action="Download"
      ready={valid}
      loadPlan={() => plan('download_model', { name: cluster }, { body })}
      planDeps={[cluster, repoId, target, revision, Boolean(hfToken)]}
      planLabel="What the download does"
      onClose={onClose}
      onConfirm={async () => {
        const { data } = await modelsApi.download(cluster, body);
        if ('operation' in data) navigate(`/operations/${encodeURIComponent(data.operation.id)}`);
        else onClose();
      }}
    >
      <ErrorAlert error={storage.error} />
      <FormField
        label="Hugging Face repository"
        description="The files land under models/<repository>/ of the storage, where jobs and endpoints read them."
        errorText={repoId && !REPO.test(repoId) ? 'owner/name, for example Qwen/Qwen3-0.6B' : undefined}
      >
        <Input value={repoId} onChange={({ detail }) => setRepoId(detail.value.trim())} placeholder="Qwen/Qwen3-0.6B" ariaLabel="Hugging Face repository" />
      </FormField>
      <FormField label="Revision" description="A branch, tag or commit.">
        <Input value={revision} onChange={({ detail }) => setRevision(detail.value.trim())} ariaLabel="Revision" />
      </FormField>
      <SelectField
        label="Storage"
        description="An S3 storage of this cluster."
        errorText={storage.data && !options.length ? 'This cluster has no S3 storage: add one on this tab first.' : undefined}
        value={target}
        options={options}
        loading={storage.loading}
        placeholder="Choose a storage"
        onChange={setChosen}
      />
      <FormField
        label={
          <span>
            Hugging Face token <i>- optional</i>
          </span>
        }
        description="For gated or private repositories. Kept in a Kubernetes Secret only while the download runs; never shown again."
      >
        <Input type="password" value={hfToken} onChange={({ detail }) => setHfToken(detail.value)} ariaLabel="Hugging Face token" />
      </FormField>
    </ConfirmAction>
  );
}

export default function ModelsTable({ cluster }: { cluster: string }) {
  const { can } = useSession();
  const { data, error, loading, reload } = useFetch(() => modelsApi.list(cluster), [cluster]);
  const [downloading, setDownloading] = useState(false);
  return (
    <div data-testid="models-table">
      <ListTable what="models" fetched={{ data, loading, reload }}
        trackBy="path"
        empty="No models downloaded. Choose Download model, or put one under models/ of an S3 storage."
        description="Model folders under models/ of each S3 storage"
        actions={
          <Button disabled={!can('operator')} disabledReason="Downloading models needs the operator role." onClick={() => setDownloading(true)}>
            Download model
          </Button>
        }
        columnDefinitions={[
          { id: 'repoId', header: 'Model', isRowHeader: true, cell: (item) => item.repoId },
          { id: 'storage', header: 'Storage', cell: (item) => item.storageName },
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
      {downloading ? <DownloadModel cluster={cluster} onClose={() => setDownloading(false)} /> : null}
    </div>
  );
}
