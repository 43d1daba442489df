// Capacity: the account's training plans (state, window, what uses them; a plan's name opens its page, Extend buys
// more time for one) and a search for offerings, each bought only after a dry run shows its price and the user
// confirms that price.

import { type ReactNode, useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import Modal from '@cloudscape-design/components/modal';
import Multiselect from '@cloudscape-design/components/multiselect';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';

import ErrorAlert from '../components/ErrorAlert';
import PageLayout from '../components/PageLayout';
import ExtendPlanModal from '../components/ExtendPlanModal';
import Link from '../components/Link';
import PlanSteps from '../components/PlanSteps';
import Status from '../components/Status';
import { api } from '../lib/api';
import { utcMinute } from '../lib/format';
import type { OfferingView, PlanView, TrainingPlanView } from '../lib/types';

// What a search asks (and a purchase repeats): regions only on a search of several Regions.
type OfferingQuery = { instanceType: string; instanceCount: number; durationHours: number; startTimeAfter?: string; regions?: string[] };
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';

// ReservedCapacityInstanceType (the types a training plan reserves).
const TYPES = [
  'ml.p4d.24xlarge', 'ml.p4de.24xlarge', 'ml.p5.48xlarge', 'ml.p5.4xlarge', 'ml.p5e.48xlarge', 'ml.p5en.48xlarge',
  'ml.p6-b200.48xlarge', 'ml.p6-b300.48xlarge', 'ml.p6e-gb200.36xlarge', 'ml.trn1.32xlarge', 'ml.trn2.48xlarge',
];

const when = utcMinute;

// A date, a zone or an instance type never wraps at its hyphens; the column grows instead, and the table keeps to
// few columns so it fits the page: the window is one column (start, then end below it).
const Whole = ({ children }: { children: ReactNode }) => <span style={{ whiteSpace: 'nowrap' }}>{children}</span>;

// An extension buys more time for a plan that still gives capacity (ExtendTrainingPlan).
const EXTENDABLE = ['Active', 'Scheduled'];

function PlansTable() {
  const { can } = useSession();
  const { data, error, loading, reload } = useFetch(() => api.trainingPlans(), [], 10000);
  const [selected, setSelected] = useState<TrainingPlanView[]>([]);
  const [extending, setExtending] = useState(false);
  const current = data?.items.find((p) => p.name === selected[0]?.name);
  const why = !can('admin')
    ? 'Extending a plan spends money: it needs the admin role.'
    : current
      ? `${current.name} is ${current.status}; only an Active or Scheduled plan is extended.`
      : 'Select a plan.';
  const extendable = !!current && can('admin') && EXTENDABLE.includes(current.status);
  return (
    <SpaceBetween size="s">
      <ErrorAlert error={error} />
      <Table<TrainingPlanView>
        wrapLines
        header={
          <Header
            counter={`(${data?.items.length ?? 0})`}
            actions={
              <SpaceBetween direction="horizontal" size="xs">
                <Button iconName="refresh" ariaLabel="Refresh plans" onClick={() => void reload()} />
                <Button disabled={!extendable} disabledReason={why} onClick={() => setExtending(true)}>
                  Extend
                </Button>
              </SpaceBetween>
            }
          >
            Training plans
          </Header>
        }
        loading={loading && !data}
        items={data?.items ?? []}
        trackBy="name"
        selectionType="single"
        selectedItems={current ? [current] : []}
        onSelectionChange={({ detail }) => setSelected(detail.selectedItems)}
        ariaLabels={{ itemSelectionLabel: (_, p) => p.name, selectionGroupLabel: 'Training plans', allItemsSelectionLabel: () => 'all' }}
        empty="No training plans. Search offerings below."
        columnDefinitions={[
          { id: 'name', header: 'Name', cell: (p) => <Link href={`/capacity/${encodeURIComponent(p.name)}`}>{p.name}</Link> },
          { id: 'status', header: 'State', cell: (p) => <Status value={p.status} /> },
          {
            id: 'type',
            header: 'Instances',
            cell: (p) => (
              <>
                <Whole>{`${p.totalInstanceCount} x ${p.instanceType ?? ''}`}</Whole>
                <Box variant="small" display="block">
                  in <Whole>{p.availabilityZone ?? '-'}</Whole>
                </Box>
              </>
            ),
          },
          { id: 'use', header: 'In use / free', cell: (p) => `${p.inUseInstanceCount} / ${p.availableInstanceCount}` },
          {
            id: 'window',
            header: 'Window',
            cell: (p) => (
              <>
                <Whole>{when(p.startTime)}</Whole>
                <Box variant="small" display="block">
                  to <Whole>{when(p.endTime)}</Whole>
                </Box>
              </>
            ),
          },
          {
            id: 'usage',
            header: 'Used by',
            cell: (p) =>
              (p.usage ?? []).length
                ? (p.usage ?? []).map((u) => (
                    <Box key={`${u.cluster}/${u.instanceGroup}`} display="block">
                      <Whole>{`${u.cluster}/${u.instanceGroup}`}</Whole> ({u.currentCount}/{u.targetCount})
                    </Box>
                  ))
                : '-',
          },
        ]}
      />
      {extending && current ? (
        <ExtendPlanModal
          plan={current}
          onClose={() => {
            setExtending(false);
            void reload();
          }}
        />
      ) : null}
    </SpaceBetween>
  );
}

function BuyModal({ query, offering, onClose }: { query: OfferingQuery; offering: OfferingView; onClose: () => void }) {
  const [name, setName] = useState('');
  const [plan, setPlan] = useState<PlanView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  // bought in the Region that offers it (sent when the search named Regions)
  const region = query.regions?.length && offering.region ? { region: offering.region } : {};
  const body = { ...query, regions: undefined, ...region, name, offeringId: offering.offeringId, confirmPrice: offering.upfrontFee };
  const preview = async () => {
    setError(null);
    try {
      const answer = await api.buyTrainingPlan(body, true);
      setPlan('steps' in answer.data ? (answer.data as PlanView) : null);
      if (!('steps' in answer.data)) setDone('message' in answer.data ? String(answer.data.message) : 'Already bought.');
    } catch (e) {
      setError(e);
    }
  };
  const buy = async () => {
    setError(null);
    try {
      const answer = await api.buyTrainingPlan(body);
      setDone('name' in answer.data ? `Bought ${answer.data.name} (${answer.data.status}).` : 'Already bought.');
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Modal
      visible
      onDismiss={onClose}
      header={`Buy ${offering.instanceCount} x ${offering.instanceType} in ${offering.availabilityZone}`}
      footer={
        <Box float="right">
          <SpaceBetween direction="horizontal" size="xs">
            <Button onClick={onClose}>{done ? 'Close' : 'Cancel'}</Button>
            {!done && !plan && <Button onClick={() => void preview()} disabled={!name}>Show price</Button>}
            {!done && plan && <Button variant="primary" onClick={() => void buy()}>{`Buy for ${offering.upfrontFee} ${offering.currencyCode}`}</Button>}
          </SpaceBetween>
        </Box>
      }
    >
      <SpaceBetween size="m">
        <ErrorAlert error={error} />
        <FormField label="Plan name" description="1-64 letters, digits and hyphens">
          <Input value={name} onChange={({ detail }) => { setName(detail.value); setPlan(null); }} ariaLabel="Plan name" />
        </FormField>
        {plan && <PlanSteps steps={plan.steps} label="This purchase (not refundable)" />}
        {done && <Box>{done}</Box>}
      </SpaceBetween>
    </Modal>
  );
}

function OfferingSearch() {
  const [instanceType, setInstanceType] = useState('ml.p5.48xlarge');
  // none chosen: Launchpod's own Region; several: each searched, what they offer ranked as one list
  const [regions, setRegions] = useState<string[]>([]);
  const offered = useFetch(() => api.regions(), []);
  const [count, setCount] = useState('1');
  const [days, setDays] = useState('7');
  const [start, setStart] = useState('');
  const [offerings, setOfferings] = useState<OfferingView[] | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [buying, setBuying] = useState<OfferingView | null>(null);
  const query = {
    instanceType,
    instanceCount: Number(count),
    durationHours: Number(days) * 24,
    startTimeAfter: start ? new Date(start).toISOString() : undefined,
  };
  const search = async () => {
    setError(null);
    try {
      const answer = await api.searchOfferings({ ...query, regions });
      setOfferings(answer.data.items);
      setMessage(answer.data.message ?? null);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Container header={<Header description="Reserved capacity for HyperPod, paid upfront">Search offerings</Header>}>
      <SpaceBetween size="m">
        <ErrorAlert error={error} />
        <SpaceBetween direction="horizontal" size="m">
          <FormField label="Instance type">
            <Select
              selectedOption={{ value: instanceType, label: instanceType }}
              onChange={({ detail }) => setInstanceType(detail.selectedOption.value ?? instanceType)}
              options={TYPES.map((t) => ({ value: t, label: t }))}
            />
          </FormField>
          <FormField label="Instances">
            <Input type="number" value={count} onChange={({ detail }) => setCount(detail.value)} ariaLabel="Instances" />
          </FormField>
          <FormField label="Days">
            <Input type="number" value={days} onChange={({ detail }) => setDays(detail.value)} ariaLabel="Days" />
          </FormField>
          <FormField label="Regions (optional)">
            <Multiselect
              selectedOptions={regions.map((r) => ({ value: r, label: r }))}
              onChange={({ detail }) => setRegions(detail.selectedOptions.map((o) => o.value ?? '').filter(Boolean))}
              options={(offered.data?.items ?? []).map((r) => ({ value: r, label: r }))}
              placeholder={offered.data ? `${offered.data.default} (Launchpod's)` : 'Launchpod\'s Region'}
              statusType={offered.data ? 'finished' : 'loading'}
              filteringType="auto"
            />
          </FormField>
          <FormField label="Earliest start (optional)">
            <Input value={start} placeholder="2026-01-31T09:00Z" onChange={({ detail }) => setStart(detail.value)} ariaLabel="Earliest start" />
          </FormField>
          <FormField label="&nbsp;">
            <Button variant="primary" onClick={() => void search()}>Search</Button>
          </FormField>
        </SpaceBetween>
        {message && <Box color="text-status-inactive">{message}</Box>}
        {offerings && (
          <Table<OfferingView>
            wrapLines
            items={offerings}
            empty="No offerings."
            columnDefinitions={[
              { id: 'region', header: 'Region', cell: (o) => o.region ?? '-' },
              { id: 'zone', header: 'Zone', cell: (o) => o.availabilityZone ?? '-' },
              { id: 'price', header: 'Upfront price', cell: (o) => `${o.upfrontFee} ${o.currencyCode}` },
              { id: 'start', header: 'Start', cell: (o) => when(o.startTime) },
              { id: 'end', header: 'End', cell: (o) => when(o.endTime) },
              { id: 'hours', header: 'Hours', cell: (o) => o.durationHours },
              { id: 'buy', header: '', cell: (o) => <Button onClick={() => setBuying(o)} ariaLabel={`Buy ${o.offeringId}`}>Buy…</Button> },
            ]}
          />
        )}
        {buying && <BuyModal query={{ ...query, regions }} offering={buying} onClose={() => setBuying(null)} />}
      </SpaceBetween>
    </Container>
  );
}

export default function CapacityPage() {
  return (
    <PageLayout
      title="Capacity"
      description="Training plans reserve HyperPod instances for a window, paid upfront; an instance group runs on one."
    >
      <SpaceBetween size="l">
        <PlansTable />
        <OfferingSearch />
      </SpaceBetween>
    </PageLayout>
  );
}
