// The live phase stepper: one step per phase with its status, times, attempts and error.

import { useEffect, useState } from 'react';
import Box from '@cloudscape-design/components/box';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Steps from '@cloudscape-design/components/steps';

import Unbroken from './Unbroken';
import { formatDuration, formatTime, statusLabel, statusType } from '../lib/format';
import type { PhaseView } from '../lib/types';

function useNow(active: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return undefined;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [active]);
  return now;
}

function details(phase: PhaseView, now: number) {
  const parts: string[] = [];
  if (phase.startedAt) parts.push(`Started ${formatTime(phase.startedAt)}`);
  if (phase.startedAt) parts.push(`${phase.endedAt ? 'took' : 'running for'} ${formatDuration(phase.startedAt, phase.endedAt, now)}`);
  if (phase.attempts > 1) parts.push(`${phase.attempts} attempts`);
  return parts.join(' · ');
}

export default function PhaseSteps({ phases }: { phases: PhaseView[] }) {
  const now = useNow(phases.some((phase) => phase.status === 'RUNNING'));
  return (
    <Steps
      ariaLabel="Operation phases"
      steps={phases.map((phase) => ({
        status: statusType(phase.status),
        statusIconAriaLabel: statusLabel(phase.status),
        header: (
          <span data-phase={phase.name} data-status={phase.status}>
            <b>{phase.title}</b> <Box variant="span" color="text-status-inactive">{statusLabel(phase.status)}</Box>
          </span>
        ),
        details: (
          <SpaceBetween size="xxxs">
            {details(phase, now) ? <Box variant="small">{details(phase, now)}</Box> : null}
            {phase.message ? (
              <Box variant="p" color={phase.status === 'FAILED' ? 'text-status-error' : 'text-body-secondary'}>
                <Unbroken text={phase.message} />
              </Box>
            ) : null}
            {phase.error ? <Box variant="code">{phase.error}</Box> : null}
          </SpaceBetween>
        ),
      }))}
    />
  );
}
