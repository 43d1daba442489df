// Task governance teams (SageMaker compute quotas): the list with each team's queue, and a small form that
// previews (dryRun) and saves one team. Saving is effective at once: no operation to follow.

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import ColumnLayout from '@cloudscape-design/components/column-layout';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';

import { api, plan } from '../lib/api';
import { EMPTY_TEAM, quotaText, type Sharing, type TeamForm, teamBody, teamProblem, type Unit, UNITS } from '../lib/teams';
import type { PlanStepView } from '../lib/types';
import { useAction } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import ConfirmAction from './ConfirmAction';
import ErrorAlert from './ErrorAlert';
import GovernancePolicy from './GovernancePolicy';
import TeamsUsage, { shares } from './TeamsUsage';

const SHARING: Sharing[] = ['LendAndBorrow', 'Lend', 'DontLend'];

export default function TeamsSection({ cluster }: { cluster: string }) {
  const { can, notify } = useSession();
  const { data, error, reload } = useFetch(() => api.teams(cluster), [cluster]);
  const groups = useFetch(() => api.instanceGroups(cluster), [cluster]);
  const instanceTypes = [
    ...new Set((groups.data?.items ?? []).flatMap((g) => (g.instanceType ? [g.instanceType] : []))),
  ].sort();
  const [edited, setForm] = useState<TeamForm>(EMPTY_TEAM);
  const form = { ...edited, instanceType: edited.instanceType || instanceTypes[0] || '' };
  const [preview, setPreview] = useState<PlanStepView[] | null>(null);
  const { busy, error: actionError, setError: setActionError, run } = useAction();
  const [deleting, setDeleting] = useState<string | null>(null);
  const problem = teamProblem(form);
  const allowed = can('admin');

  function set(change: Partial<TeamForm>) {
    setForm((current) => ({ ...current, ...change }));
    setPreview(null);
  }

  const send = (dryRun: boolean) =>
    run(async () => {
      const { data: answer } = await api.putTeam(cluster, form.team, teamBody(form), dryRun);
      if (answer.status === 'PLANNED') setPreview(answer.steps);
      else {
        notify({ type: answer.status === 'NOOP' ? 'info' : 'success', header: `Team ${form.team}`, content: answer.message });
        setPreview(null);
        void reload();
      }
    });

  return (
    <SpaceBetween size="s">
      <GovernancePolicy cluster={cluster} />
      <ErrorAlert error={error} />
      <ErrorAlert error={actionError} onDismiss={() => setActionError(null)} />
      <Table
        variant="embedded"
        items={data?.items ?? []}
        trackBy="team"
        wrapLines
        header={<Header variant="h3" counter={`(${data?.items.length ?? 0})`}>Teams</Header>}
        empty={<Box textAlign="center">No teams yet: give one a quota below.</Box>}
        columnDefinitions={[
          { id: 'team', header: 'Team', isRowHeader: true, cell: (t) => t.team },
          { id: 'quota', header: 'Quota', cell: (t) => t.resources.map(quotaText).join(', ') },
          {
            id: 'use',
            header: 'Guaranteed / used / borrowed',
            cell: (t) => {
              const s = shares(t);
              return `${s.guaranteed} / ${s.within + s.borrowed} / ${s.borrowed} instances`;
            },
          },
          { id: 'sharing', header: 'Sharing', cell: (t) => (t.borrowLimit ? `${t.sharing} (${t.borrowLimit}%)` : t.sharing) },
          {
            // The queue and its namespace are long names: one per line, the queue's never broken at its hyphens,
            // so neither is cut off nor split across lines.
            id: 'queue',
            header: 'Queue',
            minWidth: 260,
            cell: (t) => (
              <div data-testid={`team-queue-${t.team}`}>
                <Box>
                  <span data-testid="queue-name" style={{ whiteSpace: 'nowrap' }}>
                    {t.queue}
                  </span>
                </Box>
                <Box variant="small">
                  in {t.namespace}
                  {t.queueReady ? '' : ' (not yet)'}
                </Box>
              </div>
            ),
          },
          {
            id: 'delete',
            header: 'Actions',
            cell: (t) => (
              <Button variant="inline-link" disabled={!allowed} ariaLabel={`Delete team ${t.team}`} onClick={() => setDeleting(t.team)}>
                Delete
              </Button>
            ),
          },
        ]}
      />
      {data?.items.length ? <TeamsUsage teams={data.items} /> : null}
      <Header variant="h3" description="A new name adds a team; a team's name changes its quota and sharing.">
        Give a team its share
      </Header>
      <ColumnLayout columns={3}>
        <FormField label="Team">
          <Input value={form.team} ariaLabel="Team name" onChange={({ detail }) => set({ team: detail.value })} />
        </FormField>
        <FormField label="Instance type">
          <Select
            selectedOption={form.instanceType ? { value: form.instanceType, label: form.instanceType } : null}
            options={instanceTypes.map((t) => ({ value: t, label: t }))}
            onChange={({ detail }) => set({ instanceType: detail.selectedOption.value ?? '' })}
          />
        </FormField>
        <FormField label="Give" description="SageMaker fills the rest by ratio">
          <Select
            ariaLabel="What to give"
            selectedOption={UNITS.find((u) => u.value === form.unit) ?? UNITS[0]}
            options={UNITS}
            onChange={({ detail }) => set({ unit: (detail.selectedOption.value ?? 'instanceCount') as Unit })}
          />
        </FormField>
        <FormField label="Amount">
          <Input type="number" value={form.count} onChange={({ detail }) => set({ count: detail.value })} />
        </FormField>
        <FormField label="Sharing">
          <Select
            selectedOption={{ value: form.sharing, label: form.sharing }}
            options={SHARING.map((s) => ({ value: s, label: s }))}
            onChange={({ detail }) => set({ sharing: (detail.selectedOption.value ?? 'LendAndBorrow') as Sharing })}
          />
        </FormField>
        <FormField label="Borrow limit (%)" description="LendAndBorrow only">
          <Input
            type="number"
            value={form.borrowLimit}
            disabled={form.sharing !== 'LendAndBorrow'}
            onChange={({ detail }) => set({ borrowLimit: detail.value })}
          />
        </FormField>
        <FormField label="Fair-share weight">
          <Input type="number" value={form.fairShareWeight} onChange={({ detail }) => set({ fairShareWeight: detail.value })} />
        </FormField>
      </ColumnLayout>
      {problem && form.team ? <Box variant="small">{problem}</Box> : null}
      <SpaceBetween direction="horizontal" size="xs">
        <Button disabled={!allowed || Boolean(problem)} loading={busy} onClick={() => void send(true)}>
          Preview team
        </Button>
        <Button
          variant="primary"
          disabled={!allowed || Boolean(problem)}
          disabledReason={!allowed ? 'Changing teams needs the admin role.' : (problem ?? undefined)}
          loading={busy}
          onClick={() => void send(false)}
        >
          Save team
        </Button>
      </SpaceBetween>
      {preview ? (
        <Box variant="small">
          Plan: {preview.map((s) => `${s.action} ${s.target}: ${s.reason}`).join('; ') || 'nothing to do'}
        </Box>
      ) : null}
      {deleting ? (
        <ConfirmAction
          header={`Delete team ${deleting}?`}
          action="Delete team"
          typeToConfirm={deleting}
          confirmLabel="Team name to confirm"
          loadPlan={() => plan('delete_team', { name: cluster, team: deleting }, { query: { confirm: deleting } })}
          planDeps={[cluster, deleting]}
          planLabel="What the delete does"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            const { data: answer } = await api.deleteTeam(cluster, deleting);
            notify({ type: 'success', header: `Team ${deleting}`, content: answer.message });
            setDeleting(null);
            void reload();
          }}
        >
          <Box>The team's compute quota goes; its running tasks lose the guaranteed capacity and may be preempted.</Box>
        </ConfirmAction>
      ) : null}
    </SpaceBetween>
  );
}
