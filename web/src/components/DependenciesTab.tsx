// The cluster's dependencies (EKS add-ons and Kubernetes manifests pinned by Launchpod) and their reconcile.

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Checkbox from '@cloudscape-design/components/checkbox';
import SpaceBetween from '@cloudscape-design/components/space-between';
import StatusIndicator from '@cloudscape-design/components/status-indicator';

import { api } from '../lib/api';
import { useAction } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import { useAnswer } from '../useAnswer';
import ErrorAlert from './ErrorAlert';
import ListTable from './ListTable';
import Status from './Status';

export default function DependenciesTab({ cluster, ready }: { cluster: string; ready: boolean }) {
  const follow = useAnswer();
  const { can } = useSession();
  const { data, error, loading, reload } = useFetch(() => api.dependencies(cluster), [cluster]);
  const [includeOptional, setIncludeOptional] = useState(false);
  const { busy, error: actionError, setError: setActionError, run } = useAction();

  const reconcile = () =>
    run(async () => {
      const { data: answer } = await api.reconcileDependencies(cluster, includeOptional);
      follow(answer, () => void reload(), 'Every dependency is at its pinned version.');
    });

  const items = data?.items ?? [];
  const missing = items.filter((item) => item.required && item.state === 'NOT_INSTALLED').length;
  const drifted = items.filter((item) => item.drift).length;
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={error} />
      <ErrorAlert error={actionError} onDismiss={() => setActionError(null)} />
      <ListTable what="dependencies" fetched={{ data, loading, reload }}
        trackBy="name"
        empty="No dependencies are pinned."
        description={
          data
            ? `Pinned by manifest ${data.manifestVersion}. ${missing ? `${missing} required not installed. ` : ''}${drifted ? `${drifted} not at the pinned version.` : ''}`
            : 'EKS add-ons and Kubernetes manifests the HyperPod operators need, at pinned versions.'
        }
        before={
          <Checkbox checked={includeOptional} onChange={({ detail }) => setIncludeOptional(detail.checked)}>
            Include optional
          </Checkbox>
        }
        actions={
          <Button
            variant="primary"
            loading={busy}
            disabled={!ready || !can('admin')}
            disabledReason={!ready ? 'The EKS control plane must be ACTIVE first.' : 'Installing dependencies needs the admin role.'}
            onClick={() => void reconcile()}
          >
            Install or update
          </Button>
        }
        columnDefinitions={[
          { id: 'name', header: 'Name', isRowHeader: true, cell: (item) => item.name },
          { id: 'kind', header: 'Kind', cell: (item) => (item.kind === 'addon' ? 'EKS add-on' : 'Manifest') },
          { id: 'required', header: 'Required', cell: (item) => (item.required ? 'Required' : 'Optional') },
          {
            id: 'state',
            header: 'State',
            cell: (item) =>
              item.note ? (
                <SpaceBetween size="xxxs">
                  <StatusIndicator type="pending">Waits for nodes</StatusIndicator>
                  <Box variant="small">{item.note}</Box>
                </SpaceBetween>
              ) : (
                <Status value={item.state} />
              ),
          },
          { id: 'pinned', header: 'Pinned', cell: (item) => item.pinned },
          {
            id: 'installed',
            header: 'Installed',
            cell: (item) =>
              item.drift ? (
                <StatusIndicator type="warning">{item.installed} (drift)</StatusIndicator>
              ) : (
                item.installed ?? '-'
              ),
          },
          { id: 'purpose', header: 'Purpose', cell: (item) => item.purpose },
        ]}
      />
    </SpaceBetween>
  );
}
