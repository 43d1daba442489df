// A diagnosis as findings with their evidence, the likely cause, and the suggested next steps, each with
// where to do it in the console and a command to copy. Diagnoses only read; they never run a step.

import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';
import ColumnLayout from '@cloudscape-design/components/column-layout';
import Container from '@cloudscape-design/components/container';
import CopyToClipboard from '@cloudscape-design/components/copy-to-clipboard';
import Header from '@cloudscape-design/components/header';
import SpaceBetween from '@cloudscape-design/components/space-between';
import StatusIndicator from '@cloudscape-design/components/status-indicator';

import type { components } from '../api/schema';
import { config } from '../lib/config';
import { curlCommand, whereInConsole, type NextStep } from '../lib/nextSteps';

export type DiagnosisView = components['schemas']['DiagnosisView'];
// A diagnosis's suggestion, or an incident's next step (whose tool may be absent: alert a person).
type SuggestedStep = NextStep;

const SEVERITY = { error: 'error', warning: 'warning', info: 'info' } as const;
const WORD = { error: 'Problem', warning: 'Warning', info: 'Checked' } as const;

/** Where to run ``step`` in the console and its command to copy; ``why`` first unless told not to. */
export function StepHow({ step, showWhy = true, width }: { step: SuggestedStep; showWhy?: boolean; width?: number }) {
  // the API's base as this console reaches it (config.json's apiUrl: /api, or https://…/prod/api)
  const command = curlCommand(step, new URL(config().apiUrl, window.location.href).toString());
  const where = whereInConsole(step);
  return (
    <SpaceBetween size="xxs">
      {showWhy ? <Box>{step.why}</Box> : null}
      {where ? (
        <Box variant="small">
          In the console: <Box variant="span" fontWeight="bold">{where}</Box>
          {step.mutates !== false ? ' (asks for confirmation and shows its plan first)' : ''}
        </Box>
      ) : null}
      {command ? (
        // a command keeps to one line (it scrolls sideways): a token broken over two lines misreads
        <div className="launchpod-command" style={{ overflowX: 'auto', whiteSpace: 'nowrap', maxWidth: width }}>
          <CopyToClipboard
            variant="inline"
            textToCopy={command}
            copyButtonAriaLabel="Copy command"
            copySuccessText="Command copied"
            copyErrorText="Could not copy the command"
          />
        </div>
      ) : null}
    </SpaceBetween>
  );
}

function Suggestion({ step }: { step: SuggestedStep }) {
  return (
    <Container>
      <StepHow step={step} />
    </Container>
  );
}

export default function Diagnosis({ view, title }: { view: DiagnosisView; title: string }) {
  return (
    <SpaceBetween size="m">
      <Header variant="h3" description={`Read-only: ${view.subject}`}>
        {title}
      </Header>
      {view.cause ? (
        <Alert type="warning" header="Likely cause">
          {view.cause}
        </Alert>
      ) : (
        <Alert type="info">No single cause stands out in what was read.</Alert>
      )}
      <ul aria-label="Findings" style={{ margin: 0, paddingInlineStart: 0, listStyle: 'none' }}>
        <SpaceBetween size="xs">
          {view.findings.map((finding, index) => (
            <li key={index}>
              {/* the icon alone carries the colour; the words stay in the body's colour, so they never read as links */}
              <StatusIndicator type={SEVERITY[finding.severity]} iconAriaLabel={WORD[finding.severity]} />{' '}
              <Box variant="span" fontWeight="bold">
                {WORD[finding.severity]}:
              </Box>{' '}
              {finding.title}
              {(finding.evidence ?? []).length ? (
                <ul style={{ marginBlock: 2 }}>
                  {(finding.evidence ?? []).map((line, n) => (
                    <li key={n}>
                      <Box variant="small">{line}</Box>
                    </li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </SpaceBetween>
      </ul>
      {(view.suggestions ?? []).length ? (
        <SpaceBetween size="xs">
          <Box variant="h4">Suggested next steps</Box>
          <ColumnLayout columns={1}>
            {(view.suggestions ?? []).map((step, index) => (
              <Suggestion key={index} step={step} />
            ))}
          </ColumnLayout>
        </SpaceBetween>
      ) : null}
      {(view.limitations ?? []).length ? (
        <Box variant="small" color="text-body-secondary">
          Not looked at: {(view.limitations ?? []).join(' ')}
        </Box>
      ) : null}
    </SpaceBetween>
  );
}
