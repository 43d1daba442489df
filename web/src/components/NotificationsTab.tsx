// Who is told about the cluster: e-mail addresses (SNS asks each to confirm) and Slack- or
// Teams-compatible webhooks, per kind; add and remove them, and send a test message. Effective at once.

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import ColumnLayout from '@cloudscape-design/components/column-layout';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import Multiselect from '@cloudscape-design/components/multiselect';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';
import StatusIndicator from '@cloudscape-design/components/status-indicator';
import Table from '@cloudscape-design/components/table';

import { api, plan } from '../lib/api';
import type { NotificationKind, SubscriberRequest } from '../lib/types';
import { useActions } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import ConfirmAction from './ConfirmAction';
import ErrorAlert from './ErrorAlert';

type Protocol = SubscriberRequest['protocol'];

export default function NotificationsTab({ cluster }: { cluster: string }) {
  const { can, notify } = useSession();
  const { data, error, reload } = useFetch(() => api.notifications(cluster), [cluster]);
  const [protocol, setProtocol] = useState<Protocol>('webhook');
  const [endpoint, setEndpoint] = useState('');
  const [kinds, setKinds] = useState<NotificationKind[]>([]);
  const [removing, setRemoving] = useState<{ id: string; endpoint: string } | null>(null);
  const actions = useActions<string>();
  const { busy, error: actionError, setError: setActionError } = actions;
  const allowed = can('admin');
  const allKinds = data?.kinds ?? [];

  // each action reads the subscribers again once it is done
  const run = (what: string, action: () => Promise<void>) =>
    actions.run(what, async () => {
      await action();
      void reload();
    });

  const add = () =>
    run('add', async () => {
      const body: SubscriberRequest = { protocol, endpoint, ...(kinds.length ? { kinds } : {}) };
      const { data: answer } = await api.addSubscriber(cluster, body);
      notify({ type: 'success', header: `Subscriber ${endpoint}`, content: 'status' in answer ? answer.message : 'Added.' });
      setEndpoint('');
    });

  return (
    <SpaceBetween size="s">
      <ErrorAlert error={error} />
      <ErrorAlert error={actionError} onDismiss={() => setActionError(null)} />
      <Table
        wrapLines
        variant="embedded"
        items={data?.subscribers ?? []}
        trackBy="id"
        header={
          <Header
            variant="h3"
            counter={`(${data?.subscribers.length ?? 0})`}
            actions={
              <Button
                disabled={!allowed}
                disabledReason="Sending a test message needs the admin role."
                loading={busy === 'test'}
                onClick={() =>
                  void run('test', async () => {
                    const { data: sent } = await api.testNotification(cluster);
                    notify({ type: 'success', header: 'Test message sent', content: `To ${sent.subscribers} subscribers.` });
                  })
                }
              >
                Send a test message
              </Button>
            }
          >
            Notifications
          </Header>
        }
        empty={<Box textAlign="center">Nobody is told about this cluster yet: add an e-mail address or a webhook below.</Box>}
        columnDefinitions={[
          { id: 'endpoint', header: 'Subscriber', isRowHeader: true, cell: (s) => s.endpoint },
          { id: 'protocol', header: 'Channel', cell: (s) => (s.protocol === 'email' ? 'E-mail' : 'Webhook') },
          { id: 'kinds', header: 'Told about', cell: (s) => (s.kinds.length === allKinds.length ? 'All kinds' : s.kinds.join(', ')) },
          {
            id: 'status',
            header: 'Status',
            cell: (s) =>
              s.status === 'pending-confirmation' ? (
                <StatusIndicator type="pending">Waiting for the address to confirm</StatusIndicator>
              ) : (
                <StatusIndicator type="success">{s.status === 'confirmed' ? 'Confirmed' : 'Active'}</StatusIndicator>
              ),
          },
          {
            id: 'remove',
            header: '',
            cell: (s) => (
              <Button
                variant="inline-link"
                ariaLabel={`Remove ${s.endpoint}`}
                disabled={!allowed}
                loading={busy === s.id}
                onClick={() => setRemoving({ id: s.id, endpoint: s.endpoint })}
              >
                Remove
              </Button>
            ),
          },
        ]}
      />
      <ColumnLayout columns={3}>
        <FormField label="Channel">
          <Select
            selectedOption={{ value: protocol, label: protocol === 'email' ? 'E-mail' : 'Webhook (Slack, Teams)' }}
            options={[
              { value: 'webhook', label: 'Webhook (Slack, Teams)' },
              { value: 'email', label: 'E-mail' },
            ]}
            onChange={({ detail }) => setProtocol((detail.selectedOption.value ?? 'webhook') as Protocol)}
          />
        </FormField>
        <FormField label={protocol === 'email' ? 'Address' : 'Webhook URL'}>
          <Input
            value={endpoint}
            ariaLabel="Subscriber endpoint"
            placeholder={protocol === 'email' ? 'oncall@example.com' : 'https://hooks.slack.com/services/...'}
            onChange={({ detail }) => setEndpoint(detail.value)}
          />
        </FormField>
        <FormField label="Told about" description="All kinds when none is chosen">
          <Multiselect
            selectedOptions={kinds.map((k) => ({ value: k, label: k }))}
            options={allKinds.map((k) => ({ value: k, label: k }))}
            placeholder="All kinds"
            onChange={({ detail }) => setKinds(detail.selectedOptions.map((o) => o.value as NotificationKind))}
          />
        </FormField>
      </ColumnLayout>
      <Box>
        <Button
          variant="primary"
          disabled={!allowed || !endpoint}
          disabledReason={!allowed ? 'Adding subscribers needs the admin role.' : 'Give an address or a URL.'}
          loading={busy === 'add'}
          onClick={() => void add()}
        >
          Add subscriber
        </Button>
      </Box>
      {removing ? (
        <ConfirmAction
          header={`Stop telling ${removing.endpoint}?`}
          action="Remove subscriber"
          loadPlan={() => plan('remove_notification_subscriber', { name: cluster, subscriberId: removing.id })}
          planDeps={[cluster, removing.id]}
          planLabel="What the removal does"
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await api.removeSubscriber(cluster, removing.id);
            notify({ type: 'success', header: `Subscriber ${removing.endpoint}`, content: 'Removed.' });
            setRemoving(null);
            void reload();
          }}
        >
          <Box>{removing.endpoint} is no longer told about {cluster}.</Box>
        </ConfirmAction>
      ) : null}
    </SpaceBetween>
  );
}
