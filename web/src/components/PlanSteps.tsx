// A dry run's plan as a short list: what each step does, to what, and why. Shown in a confirmation before
// the real request is sent (the request with ?dryRun=true answered it and changed nothing).

import Box from '@cloudscape-design/components/box';
import SpaceBetween from '@cloudscape-design/components/space-between';

import type { PlanStepView } from '../lib/types';

export default function PlanSteps({ steps, label }: { steps: PlanStepView[]; label: string }) {
  return (
    <SpaceBetween size="xxs">
      <Box variant="h4">{label}</Box>
      <ul aria-label={label} style={{ margin: 0, paddingInlineStart: 20 }}>
        {steps.map((s) => (
          <li key={`${s.action}:${s.target}`}>
            <Box variant="span" fontWeight="bold">
              {s.action} {s.target}
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
