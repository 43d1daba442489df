// What the console does with a mutation's answer: an accepted one opens its operation's page; a NOOP says
// "No changes" in the API's words (or `noopWords` when the API only says "No changes") and calls `onNoop`.

import { useNavigate } from 'react-router-dom';

import type { NoopView, OperationAcceptedView } from './lib/types';
import { useSession } from './session';

export function useAnswer() {
  const navigate = useNavigate();
  const { notify } = useSession();
  return (answer: OperationAcceptedView | NoopView, onNoop?: () => void, noopWords?: string) => {
    if (answer.status === 'NOOP') {
      const content = noopWords && answer.message === 'No changes' ? noopWords : answer.message;
      notify({ type: 'info', header: 'No changes', content });
      onNoop?.();
    } else {
      navigate(`/operations/${answer.operation.id}`);
    }
  };
}
