// The sandbox token, asked once per browser session; or a hand-off to Cognito's hosted UI or your OIDC provider when deployed.

import { useState } from 'react';
import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Form from '@cloudscape-design/components/form';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import Modal from '@cloudscape-design/components/modal';
import SpaceBetween from '@cloudscape-design/components/space-between';

import { api, ApiError } from '../lib/api';
import { setToken, startSignIn } from '../lib/auth';
import { config } from '../lib/config';

export default function SignInModal() {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const cognito = config().auth.mode !== 'token'; // hosted sign-in (Cognito or OIDC)

  async function submit() {
    const token = value.trim();
    if (!token) {
      setError('Paste the token the sandbox printed when it started.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      // Any read the viewer role may make proves the token before it is kept.
      await api.availabilityZones(token);
      setToken(token);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) setError('This token was not accepted. Check it and try again.');
      else if (caught instanceof ApiError && caught.status === 403) setToken(token);
      else setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  }

  if (cognito) {
    return (
      <Modal visible header="Sign in to Launchpod" closeAriaLabel="Close" onDismiss={() => undefined}
        footer={<Box float="right"><Button variant="primary" onClick={() => void startSignIn()}>Sign in</Button></Box>}>
        You will be sent to your organization's sign-in page and brought back here.
      </Modal>
    );
  }

  return (
    <Modal visible header="Sign in to the Launchpod sandbox" closeAriaLabel="Close" onDismiss={() => undefined}>
      <form onSubmit={(event) => { event.preventDefault(); void submit(); }}>
        <Form actions={<Button variant="primary" loading={busy} formAction="submit">Sign in</Button>}>
          <SpaceBetween size="m">
            <Box variant="p">
              The sandbox prints one access token per role (admin, operator, viewer) when it starts. The token is kept
              for this browser tab only.
            </Box>
            <FormField label="Access token" errorText={error} stretch>
              <Input type="password" value={value} autoFocus ariaRequired
                onChange={({ detail }) => setValue(detail.value)} placeholder="Paste a token" />
            </FormField>
            {error ? null : <Alert type="info">Roles: viewer reads; operator runs jobs, inference and retries; admin creates clusters.</Alert>}
          </SpaceBetween>
        </Form>
      </form>
    </Modal>
  );
}
