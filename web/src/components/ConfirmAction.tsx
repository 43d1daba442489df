// The confirmation every destructive action goes through: what it does (the API's dry-run plan, asked
// before anything is sent), an optional name typed back, and the action itself. A refusal stays in the
// dialog with the API's words.

import { useState, type ReactNode } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import Modal from '@cloudscape-design/components/modal';
import SpaceBetween from '@cloudscape-design/components/space-between';

import type { NoopView, PlanView } from '../lib/types';
import { useAction } from '../lib/useAction';
import ErrorAlert from './ErrorAlert';
import { DryRunPlan } from './PlanSteps';

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
}: {
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
}) {
  const [typed, setTyped] = useState('');
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
              disabled={!ready || (typeToConfirm !== undefined && typed !== typeToConfirm)}
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
        {ready ? <DryRunPlan load={loadPlan} deps={planDeps} label={planLabel ?? `What “${action}” does`} /> : null}
        {typeToConfirm !== undefined ? (
          <FormField label={`Type ${typeToConfirm} to confirm`}>
            <Input value={typed} onChange={({ detail }) => setTyped(detail.value)} ariaLabel={confirmLabel} />
          </FormField>
        ) : null}
      </SpaceBetween>
    </Modal>
  );
}
