// Extend a training plan by one of its extension offerings (SearchTrainingPlanOfferings with the plan's ARN,
// then ExtendTrainingPlan): the offerings with their price and new end, a dry run that names the upfront fee,
// and the extension bought only at that price, as a purchase is.

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Modal from '@cloudscape-design/components/modal';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';

import { api } from '../lib/api';
import type { ExtensionOfferingView, PlanView, TrainingPlanView } from '../lib/types';
import { useFetch } from '../lib/useFetch';
import ErrorAlert from './ErrorAlert';
import PlanSteps from './PlanSteps';

const when = (value?: string | null) => (value ? new Date(value).toISOString().slice(0, 16).replace('T', ' ') + ' UTC' : '-');

export default function ExtendPlanModal({ plan, onClose }: { plan: TrainingPlanView; onClose: () => void }) {
  const offers = useFetch(() => api.extensionOfferings(plan.name), [plan.name]);
  const [chosen, setChosen] = useState<ExtensionOfferingView | null>(null);
  const [planned, setPlanned] = useState<PlanView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const body = chosen ? { offeringId: chosen.offeringId, confirmPrice: chosen.upfrontFee } : null;

  const answered = (data: object, bought: boolean) => {
    if ('steps' in data) setPlanned(data as PlanView);
    else if ('endTime' in data) setDone(`Extended ${plan.name}: it now ends ${when((data as TrainingPlanView).endTime)}.`);
    else setDone('message' in data ? String(data.message) : bought ? 'Already extended.' : 'No changes.');
  };
  const run = async (dryRun: boolean) => {
    if (!body) return;
    setError(null);
    try {
      answered((await api.extendTrainingPlan(plan.name, body, dryRun)).data, !dryRun);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Modal
      visible
      size="large"
      onDismiss={onClose}
      header={`Extend ${plan.name}`}
      footer={
        <Box float="right">
          <SpaceBetween direction="horizontal" size="xs">
            <Button onClick={onClose}>{done ? 'Close' : 'Cancel'}</Button>
            {!done && !planned && <Button onClick={() => void run(true)} disabled={!chosen}>Show price</Button>}
            {!done && planned && chosen && (
              <Button variant="primary" onClick={() => void run(false)}>{`Extend for ${chosen.upfrontFee} ${chosen.currencyCode}`}</Button>
            )}
          </SpaceBetween>
        </Box>
      }
    >
      <SpaceBetween size="m">
        <Box>
          {plan.totalInstanceCount} x {plan.instanceType ?? '-'} in {plan.availabilityZone ?? '-'}, {plan.status}, ends {when(plan.endTime)}.
        </Box>
        <ErrorAlert error={offers.error ?? error} />
        <Table<ExtensionOfferingView>
          variant="embedded"
          loading={offers.loading && !offers.data}
          loadingText="Searching extension offerings"
          items={offers.data?.items ?? []}
          trackBy="offeringId"
          selectionType="single"
          selectedItems={chosen ? [chosen] : []}
          onSelectionChange={({ detail }) => {
            setChosen(detail.selectedItems[0] ?? null);
            setPlanned(null);
          }}
          ariaLabels={{ itemSelectionLabel: (_, o) => `${o.durationHours / 24} day(s) for ${o.upfrontFee} ${o.currencyCode}`, selectionGroupLabel: 'Extension offerings', allItemsSelectionLabel: () => 'all' }}
          empty="No extension offerings for this plan now."
          columnDefinitions={[
            { id: 'days', header: 'Adds', cell: (o) => `${o.durationHours / 24} day(s)` },
            { id: 'price', header: 'Upfront price', cell: (o) => `${o.upfrontFee} ${o.currencyCode}` },
            { id: 'end', header: 'New end', cell: (o) => when(o.endDate) },
          ]}
        />
        {planned && <PlanSteps steps={planned.steps} label="This extension (not refundable)" />}
        {done && <Box>{done}</Box>}
      </SpaceBetween>
    </Modal>
  );
}
