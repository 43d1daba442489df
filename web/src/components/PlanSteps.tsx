// A dry run's plan as a short list: what each step does, to what, and why. Shown in a confirmation before
// the real request is sent (the request with ?dryRun=true answered it and changed nothing).

import { useEffect, type ReactNode } from 'react';
import Box from '@cloudscape-design/components/box';
import SpaceBetween from '@cloudscape-design/components/space-between';

import type { NoopView, PlanStepView, PlanView } from '../lib/types';
import { useFetch } from '../lib/useFetch';
import ErrorAlert from './ErrorAlert';

// "delete" + "Delete the EKS cluster" reads once: a target that already starts with its action stands alone.
function stepText(step: PlanStepView): string {
  return step.target.toLowerCase().startsWith(step.action.toLowerCase()) ? step.target : `${step.action} ${step.target}`;
}

export default function PlanSteps({ steps, label }: { steps: PlanStepView[]; label: string }) {
  return (
    <SpaceBetween size="xxs">
      <Box variant="h4">{label}</Box>
      <ul aria-label={label} style={{ margin: 0, paddingInlineStart: 20 }}>
        {steps.map((s) => (
          <li key={`${s.action}:${s.target}`}>
            <Box variant="span" fontWeight="bold">
              {stepText(s)}
            </Box>
            <Box variant="span" color="text-body-secondary">
              {' '}
              — {s.reason}
            </Box>
          </li>
        ))}
      </ul>
    </SpaceBetween>
  );
}

// The plan a dry run answers, asked once per ``deps``: its steps, the NOOP's words, or the error; ``fallback``
// says what the action does while there is no plan to show (loading, or the dry run failed). ``onSettled`` is
// called once the dry run has answered (a plan, a NOOP or an error): a dialog keeps its confirm button disabled
// until then, so a user confirms what the plan shows, and the dialog does not grow under the pointer.
export function DryRunPlan({
  load,
  deps,
  label,
  fallback,
  onSettled,
}: {
  load: () => Promise<{ data: PlanView | NoopView | object }>;
  deps: unknown[];
  label: string;
  fallback?: ReactNode;
  onSettled?: () => void;
}) {
  const { data, error, loading } = useFetch(load, deps);
  useEffect(() => {
    if (!loading) onSettled?.();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loading]);
  const planned = data && 'steps' in data ? (data as PlanView) : null;
  return (
    <SpaceBetween size="s">
      {loading && !data ? <Box>Reading what it would do…</Box> : null}
      <ErrorAlert error={error} />
      {planned ? <PlanSteps steps={planned.steps} label={label} /> : null}
      {data && 'status' in data && data.status === 'NOOP' ? <Box>{(data as NoopView).message}</Box> : null}
      {planned || (loading && !data) ? null : fallback}
    </SpaceBetween>
  );
}
