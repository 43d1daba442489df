// The cluster's development environments (HyperPod Spaces): create one (JupyterLab or Code Editor, CPU or
// GPUs, the shared bucket at /data as in jobs, stopped when idle), list them with how to open each, stop,
// start and delete.

import { useEffect, useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import ColumnLayout from '@cloudscape-design/components/column-layout';
import Container from '@cloudscape-design/components/container';
import CopyToClipboard from '@cloudscape-design/components/copy-to-clipboard';
import Form from '@cloudscape-design/components/form';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import Link from '@cloudscape-design/components/link';
import SpaceBetween from '@cloudscape-design/components/space-between';

import { ApiError, api, plan } from '../lib/api';
import { IDES, ideTitle, spacesApi } from '../lib/spaces';
import type { SpaceIde, SpaceView } from '../lib/spaces';
import { useAction } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import ConfirmAction from './ConfirmAction';
import ErrorAlert from './ErrorAlert';
import ListTable from './ListTable';
import SelectField from './SelectField';
import Status from './Status';

const MOVING = ['Starting', 'Stopping', 'Deleting'];
const ANY_GROUP = { value: '', label: 'Any instance group', description: 'wherever it fits' };
const NO_CLAIM = { value: '', label: 'No shared bucket', description: 'nothing at /data' };

function CreateSpace({ cluster, onCreated }: { cluster: string; onCreated: () => void }) {
  const [spaceName, setSpaceName] = useState('');
  const [ide, setIde] = useState<SpaceIde>('jupyterlab');
  const [group, setGroup] = useState('');
  const [gpus, setGpus] = useState('0');
  const [chosenClaim, setClaim] = useState<string | null>(null);
  const [idle, setIdle] = useState('60');
  const { busy, error: failure, run } = useAction();
  const fields = failure instanceof ApiError ? failure.fieldErrors() : {};
  const groups = useFetch(() => api.instanceGroups(cluster), [cluster]);
  const claims = useFetch(() => api.storage(cluster), [cluster]);
  const groupOptions = [
    ANY_GROUP,
    ...(groups.data?.items ?? []).map((g) => ({ value: g.instanceGroup, label: g.instanceGroup, description: g.instanceType ?? 'no type yet' })),
  ];
  const claimOptions = [
    ...(claims.data?.items ?? []).map((c) => ({ value: c.storageName, label: c.storageName, description: `${c.kind} · ${c.source}` })),
    NO_CLAIM,
  ];
  // The shared bucket by default: a Space is where one looks at what the jobs read and wrote.
  const claim = chosenClaim ?? claimOptions[0]?.value ?? '';

  const create = () =>
    run(async () => {
      const body: Record<string, unknown> = { spaceName, ide, gpus: Number(gpus), idleTimeoutMinutes: idle ? Number(idle) : null };
      if (group) body.instanceGroup = group;
      if (claim) body.storageClaim = claim;
      await spacesApi.create(cluster, body);
      setSpaceName('');
      onCreated();
    });

  return (
    <Container header={<Header variant="h2" description="Your own JupyterLab or Code Editor on the cluster, with the shared bucket at /data as in the jobs' pods">Create a Space</Header>}>
      <Form
        actions={
          // the bucket is chosen by default once the cluster's storage is read: not before, or a quick click makes a Space without /data
          <Button variant="primary" loading={busy} disabled={!spaceName || claims.loading} onClick={() => void create()}>
            Create Space
          </Button>
        }
        errorText={failure ? <ErrorAlert error={failure} /> : undefined}
      >
        <ColumnLayout columns={3}>
          <FormField label="Space name" errorText={fields.spaceName}>
            <Input value={spaceName} onChange={({ detail }) => setSpaceName(detail.value)} placeholder="alice-notebook" ariaLabel="Space name" />
          </FormField>
          <SelectField label="IDE" value={ide} options={IDES} onChange={(value) => setIde(value as SpaceIde)} />
          <SelectField
            label="Instance group"
            errorText={fields.instanceGroup}
            value={group}
            options={groupOptions}
            fallback={ANY_GROUP}
            loading={groups.loading}
            onChange={setGroup}
          />
          <FormField label="GPUs" description="0 for a CPU Space" errorText={fields.gpus}>
            <Input type="number" value={gpus} onChange={({ detail }) => setGpus(detail.value)} ariaLabel="GPUs" />
          </FormField>
          <SelectField
            label="Shared bucket"
            description="Mounted at /data"
            errorText={fields.storageClaim}
            value={claim}
            options={claimOptions}
            fallback={NO_CLAIM}
            loading={claims.loading}
            onChange={setClaim}
          />
          <FormField label="Stop when idle for (minutes)" description="Empty: never" errorText={fields.idleTimeoutMinutes}>
            <Input type="number" value={idle} onChange={({ detail }) => setIdle(detail.value)} ariaLabel="Idle minutes" />
          </FormField>
        </ColumnLayout>
      </Form>
    </Container>
  );
}

// How to open a Space: its web address when the add-on's web UI is set up, else the port-forward command.
function Open({ space }: { space: SpaceView }) {
  if (space.url)
    return (
      <Link external href={space.url} target="_blank">
        Open
      </Link>
    );
  if (space.connect)
    return (
      <CopyToClipboard
        variant="button"
        textToCopy={space.connect}
        copyButtonText="Copy port-forward"
        copySuccessText="Copied: run it, then browse http://localhost:8888"
        copyErrorText="Could not copy"
      />
    );
  return <Box color="text-status-inactive">once Running</Box>;
}

function DeleteSpace({ cluster, space, onClose, onDeleted }: { cluster: string; space: string; onClose: () => void; onDeleted: () => void }) {
  return (
    <ConfirmAction
      header={`Delete Space ${space}?`}
      action="Delete Space"
      loadPlan={() => plan('delete_space', { name: cluster, spaceName: space }, { query: { confirm: space } })}
      planDeps={[cluster, space]}
      planLabel="What the delete does"
      onClose={onClose}
      onConfirm={async () => {
        await spacesApi.remove(cluster, space);
        onDeleted();
      }}
    >
      <Box>Its pod and home go. What is in the shared bucket (/data) stays.</Box>
    </ConfirmAction>
  );
}

export default function SpacesTab({ cluster, ready }: { cluster: string; ready: boolean }) {
  const [deleting, setDeleting] = useState<string | null>(null);
  const [moving, setMoving] = useState(false);
  const { busy, error: actionError, run } = useAction();
  // Every 5 s; every second while a Space starts or stops, so Running shows as soon as it is.
  const { data, error, loading, reload } = useFetch(
    () => (ready ? spacesApi.list(cluster) : Promise.resolve({ data: { cluster, items: [] as SpaceView[] } })),
    [cluster, ready],
    moving ? 1000 : 5000,
  );
  useEffect(() => setMoving((data?.items ?? []).some((s) => MOVING.includes(s.status))), [data]);
  if (!ready) return <Box>Spaces run on the HyperPod cluster's nodes; create it first.</Box>;
  const toggle = (s: SpaceView) =>
    run(async () => {
      await spacesApi.setStatus(cluster, s.spaceName, s.desiredStatus === 'Stopped' ? 'Running' : 'Stopped');
      await reload();
    });
  return (
    <SpaceBetween size="l">
      <CreateSpace cluster={cluster} onCreated={() => void reload()} />
      <ListTable what="Spaces" fetched={{ data, loading, reload }}
        trackBy="spaceName"
        empty="No Spaces yet."
        columnDefinitions={[
          { id: 'name', header: 'Space', isRowHeader: true, cell: (s) => s.displayName },
          { id: 'owner', header: 'Owner', cell: (s) => s.owner ?? '-' },
          { id: 'ide', header: 'IDE', cell: (s) => <span style={{ whiteSpace: 'nowrap' }}>{ideTitle(s.ide)}</span> },
          { id: 'compute', header: 'Compute', cell: (s) => (s.gpus ? `${s.gpus} GPU` : 'CPU') + (s.instanceGroup ? ` · ${s.instanceGroup}` : '') },
          { id: 'data', header: 'Shared bucket', cell: (s) => s.dataPath ?? '-' },
          { id: 'status', header: 'Status', cell: (s) => <Status value={s.status} /> },
          { id: 'open', header: 'Open', cell: (s) => <Open space={s} /> },
          {
            id: 'actions',
            header: 'Actions',
            cell: (s) => (
              <SpaceBetween direction="horizontal" size="xs">
                <Button variant="inline-link" disabled={busy} onClick={() => void toggle(s)}>
                  {s.desiredStatus === 'Stopped' ? 'Start' : 'Stop'}
                </Button>
                <Button variant="inline-link" onClick={() => setDeleting(s.spaceName)}>
                  Delete
                </Button>
              </SpaceBetween>
            ),
          },
        ]}
        footer={error || actionError ? <ErrorAlert error={error ?? actionError} /> : undefined}
      />
      {deleting ? (
        <DeleteSpace
          cluster={cluster}
          space={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            setDeleting(null);
            void reload();
          }}
        />
      ) : null}
    </SpaceBetween>
  );
}
