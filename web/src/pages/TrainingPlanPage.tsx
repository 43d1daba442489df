// One training plan (DescribeTrainingPlan): its state, instances and window, what it cost, the instance groups
// that run on it, and the extension offerings that would add days after its end (ExtendTrainingPlan is the Extend
// button, behind the same dry run and price confirmation as on the Capacity page).

import { type ReactNode, useState } from 'react';
import { useParams } from 'react-router-dom';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import Header from '@cloudscape-design/components/header';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Spinner from '@cloudscape-design/components/spinner';
import Table from '@cloudscape-design/components/table';

import Breadcrumbs from '../components/Breadcrumbs';
import ErrorAlert from '../components/ErrorAlert';
import PageLayout from '../components/PageLayout';
import ExtendPlanModal from '../components/ExtendPlanModal';
import Link from '../components/Link';
import Status from '../components/Status';
import { api } from '../lib/api';
import { clusterSectionHref } from '../lib/clusterSections';
import { utcMinute } from '../lib/format';
import type { ExtensionOfferingView, PlanUsageView, TrainingPlanView } from '../lib/types';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';

// ExtendTrainingPlan: only a plan that still gives capacity has extension offerings.
const EXTENDABLE = ['Active', 'Scheduled'];

const Whole = ({ children }: { children: ReactNode }) => <span style={{ whiteSpace: 'nowrap' }}>{children}</span>;

function Groups({ usage }: { usage: PlanUsageView[] }) {
  return (
    <Table<PlanUsageView>
      header={<Header counter={`(${usage.length})`} description="The instance groups whose instances this plan reserves">Used by</Header>}
      items={usage}
      trackBy={(u) => `${u.cluster}/${u.instanceGroup}`}
      empty="No instance group runs on this plan. Choose it as an instance group's capacity when you add or edit the group."
      columnDefinitions={[
        {
          id: 'cluster',
          header: 'Cluster',
          cell: (u) => <Link href={clusterSectionHref(u.cluster, 'instance-groups')}>{u.cluster}</Link>,
        },
        { id: 'group', header: 'Instance group', cell: (u) => <Whole>{u.instanceGroup}</Whole> },
        { id: 'count', header: 'Running / target', cell: (u) => `${u.currentCount} / ${u.targetCount}` },
      ]}
    />
  );
}

function Extensions({ plan }: { plan: TrainingPlanView }) {
  const offers = useFetch(() => api.extensionOfferings(plan.name), [plan.name]);
  return (
    <Table<ExtensionOfferingView>
      header={<Header description="Each adds days after the plan's end, in its zone, for an upfront fee">Extension offerings</Header>}
      loading={offers.loading && !offers.data}
      loadingText="Searching extension offerings"
      items={offers.data?.items ?? []}
      empty={offers.error ? <ErrorAlert error={offers.error} /> : 'No extension offerings for this plan now.'}
      columnDefinitions={[
        { id: 'days', header: 'Adds', cell: (o) => `${Math.round(o.durationHours / 24)} day(s)` },
        { id: 'price', header: 'Upfront price', cell: (o) => <Whole>{`${o.upfrontFee} ${o.currencyCode}`}</Whole> },
        { id: 'end', header: 'New end', cell: (o) => <Whole>{utcMinute(o.endDate)}</Whole> },
        { id: 'zone', header: 'Zone', cell: (o) => <Whole>{o.availabilityZone ?? '-'}</Whole> },
      ]}
    />
  );
}

export default function TrainingPlanPage() {
  const { plan: name = '' } = useParams();
  const { can } = useSession();
  const { data: plan, error, reload } = useFetch(() => api.trainingPlan(name), [name], 10000);
  const [extending, setExtending] = useState(false);
  const breadcrumbs = (
    <Breadcrumbs
      items={[
        { text: 'Capacity', href: '/capacity' },
        { text: name, href: `/capacity/${encodeURIComponent(name)}` },
      ]}
    />
  );
  if (!plan) {
    return (
      <PageLayout breadcrumbs={breadcrumbs} title={name}>
        {error ? <ErrorAlert error={error} /> : <Spinner size="large" />}
      </PageLayout>
    );
  }
  const extendable = EXTENDABLE.includes(plan.status);
  const why = !can('admin')
    ? 'Extending a plan spends money: it needs the admin role.'
    : `${plan.name} is ${plan.status}; only an Active or Scheduled plan is extended.`;
  return (
    <PageLayout
      breadcrumbs={breadcrumbs}
      title={plan.name}
      description={`${plan.totalInstanceCount} x ${plan.instanceType ?? 'instances'} reserved in ${plan.availabilityZone ?? 'its zone'}`}
      actions={
        <Button disabled={!extendable || !can('admin')} disabledReason={why} onClick={() => setExtending(true)}>
          Extend
        </Button>
      }
    >
      <SpaceBetween size="l">
        <ErrorAlert error={error} />
        <Container header={<Header>Plan</Header>}>
          <KeyValuePairs
            columns={4}
            items={[
              { label: 'State', value: <Status value={plan.status} /> },
              { label: 'Instances', value: <Whole>{`${plan.totalInstanceCount} x ${plan.instanceType ?? '-'}`}</Whole> },
              { label: 'In use / free', value: `${plan.inUseInstanceCount} / ${plan.availableInstanceCount}` },
              { label: 'Zone', value: plan.availabilityZone ?? '-' },
              { label: 'Start', value: <Whole>{utcMinute(plan.startTime)}</Whole> },
              { label: 'End', value: <Whole>{utcMinute(plan.endTime)}</Whole> },
              { label: 'Duration', value: plan.durationHours ? `${Math.round(plan.durationHours / 24)} day(s)` : '-' },
              { label: 'Upfront price', value: plan.upfrontFee ? `${plan.upfrontFee} ${plan.currencyCode ?? ''}` : '-' },
              ...(plan.statusMessage ? [{ label: 'Why', value: plan.statusMessage }] : []),
              ...(plan.message ? [{ label: 'Note', value: plan.message }] : []),
            ]}
          />
        </Container>
        <Groups usage={plan.usage ?? []} />
        {extendable ? <Extensions plan={plan} /> : <Box color="text-status-inactive">{`A ${plan.status} plan has no extension offerings.`}</Box>}
      </SpaceBetween>
      {extending ? (
        <ExtendPlanModal
          plan={plan}
          onClose={() => {
            setExtending(false);
            void reload();
          }}
        />
      ) : null}
    </PageLayout>
  );
}
