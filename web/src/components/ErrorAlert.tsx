// The error envelope, shown the same way everywhere: the message, the broken rules and the request id. A detail
// naming the call that fixes it (rule next_step, for the CLI and agents) is shown as where the console does it.

import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';

import { ApiError } from '../lib/api';
import { whereForCall } from '../lib/nextSteps';
import Link from './Link';
import Unbroken from './Unbroken';

const HEADERS: Record<number, string> = {
  0: 'Cannot reach the API',
  403: 'Your role does not allow this',
  404: 'Not found',
  409: 'The cluster is busy',
  422: 'The request was not accepted',
  503: 'AWS is busy; try again shortly',
};

export default function ErrorAlert({ error, onDismiss }: { error: unknown; onDismiss?: () => void }) {
  if (!error) return null;
  const apiError = error instanceof ApiError ? error : null;
  const message = error instanceof Error ? error.message : String(error);
  const operationId =
    apiError?.status === 409 ? /op-[0-9a-z]{8,40}/.exec(JSON.stringify(apiError.body))?.[0] : undefined;
  // A 409's detail that only repeats the holding operation's id is already the link above.
  const all = apiError?.body.details ?? [];
  const details = all.filter((detail) => detail.rule !== 'next_step' && (!operationId || detail.message !== operationId));
  const where = all
    .filter((detail) => detail.rule === 'next_step')
    .map((detail) => whereForCall(detail.message))
    .find((found) => found);
  return (
    <Alert
      type="error"
      header={
        apiError
          ? apiError.status === 409 && !operationId
            ? "Not possible in the cluster's current state" // a 409 naming no operation: no one holds the cluster
            : HEADERS[apiError.status] ?? `Request failed (${apiError.body.code})`
          : 'Something went wrong'
      }
      dismissible={!!onDismiss}
      onDismiss={onDismiss}
    >
      <Unbroken text={message} />
      {operationId ? (
        <>
          {' '}
          <Link href={`/operations/${operationId}`}>View operation {operationId}</Link>
        </>
      ) : null}
      {details.length ? (
        <ul>
          {details.map((detail, index) => (
            <li key={index}>
              {detail.field ? <code>{detail.field}</code> : null} <Unbroken text={detail.message} />
            </li>
          ))}
        </ul>
      ) : null}
      {where ? <Box variant="p">In this console: {where}.</Box> : null}
      {apiError?.body.requestId ? <Box variant="small" display="block">Request id: {apiError.body.requestId}</Box> : null}
    </Alert>
  );
}
