// The confirmation every destructive action goes through: what it does (the API's dry-run plan, asked
// before anything is sent), an optional name typed back, and the action itself. A refusal stays in the
// dialog with the API's words. ConfirmOperation is the same dialog for one catalog call that starts an
// operation: the plan is that call's dry run, and confirming opens the operation it started.

import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import Modal from '@cloudscape-design/components/modal';
import SpaceBetween from '@cloudscape-design/components/space-between';

import { call, plan, type CallOptions, type OperationId } from '../lib/api';
import type { NoopView, OperationAcceptedView, PlanView } from '../lib/types';
import { useAction } from '../lib/useAction';
import ErrorAlert from './ErrorAlert';
import { DryRunPlan } from './PlanSteps';

type ConfirmActionProps = {
  header: string;
  action: string;
  children?: ReactNode;
  typeToConfirm?: string;
  confirmLabel?: string;
  loadPlan: () => Promise<{ data: PlanView | NoopView | object }>;
  planDeps: unknown[];
  planLabel?: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  ready?: boolean;
};

export default function ConfirmAction({
  header,
  action,
  children,
  typeToConfirm,
  confirmLabel = 'Name to confirm',
  loadPlan,
  planDeps,
  planLabel,
  onConfirm,
  onClose,
  ready = true,
}: ConfirmActionProps) {
  const [typed, setTyped] = useState('');
  // the dry run of what the dialog now asks has answered: confirm what it shows
  const planKey = JSON.stringify(planDeps);
  const [plannedFor, setPlannedFor] = useState<string | null>(null);
  const planned = plannedFor === planKey;
  const { busy, error, setError, run } = useAction();

  return (
    <Modal
      visible
      onDismiss={onClose}
      header={header}
      closeAriaLabel="Close"
      footer={
        <Box float="right">
          <SpaceBetween direction="horizontal" size="xs">
            <Button variant="link" onClick={onClose}>
              Cancel
            </Button>
            <Button
              variant="primary"
              loading={busy}
              disabled={!ready || !planned || (typeToConfirm !== undefined && typed !== typeToConfirm)}
              onClick={() => void run(onConfirm)}
            >
              {action}
            </Button>
          </SpaceBetween>
        </Box>
      }
    >
      <SpaceBetween size="m">
        <ErrorAlert error={error} onDismiss={() => setError(null)} />
        {children}
        {ready ? (
          <DryRunPlan
            load={loadPlan}
            deps={planDeps}
            label={planLabel ?? `What “${action}” does`}
            onSettled={() => setPlannedFor(planKey)}
          />
        ) : null}
        {typeToConfirm !== undefined ? (
          <FormField label={`Type ${typeToConfirm} to confirm`}>
            <Input value={typed} onChange={({ detail }) => setTyped(detail.value)} ariaLabel={confirmLabel} />
          </FormField>
        ) : null}
      </SpaceBetween>
    </Modal>
  );
}

export function ConfirmOperation({
  operation,
  params,
  options = {},
  ...dialog
}: Omit<ConfirmActionProps, 'loadPlan' | 'planDeps' | 'onConfirm'> & {
  operation: OperationId;
  params: Record<string, string>;
  options?: CallOptions;
}) {
  const navigate = useNavigate();
  return (
    <ConfirmAction
      {...dialog}
      loadPlan={() => plan(operation, params, options)}
      planDeps={[operation, JSON.stringify(params), JSON.stringify(options)]}
      onConfirm={async () => {
        const { data } = await call<OperationAcceptedView>(operation, params, options);
        navigate(`/operations/${encodeURIComponent(data.operation.id)}`);
      }}
    />
  );
}
