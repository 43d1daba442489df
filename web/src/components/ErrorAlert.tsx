// The error envelope, shown the same way everywhere: the message, the broken rules and the request id.

import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';

import { ApiError } from '../lib/api';
import Link from './Link';

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
  const details = (apiError?.body.details ?? []).filter((detail) => !operationId || detail.message !== operationId);
  return (
    <Alert
      type="error"
      header={apiError ? HEADERS[apiError.status] ?? `Request failed (${apiError.body.code})` : 'Something went wrong'}
      dismissible={!!onDismiss}
      onDismiss={onDismiss}
    >
      {message}
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
              {detail.field ? <code>{detail.field}</code> : null} {detail.message}
            </li>
          ))}
        </ul>
      ) : null}
      {apiError?.body.requestId ? <Box variant="small">Request id: {apiError.body.requestId}</Box> : null}
    </Alert>
  );
}
