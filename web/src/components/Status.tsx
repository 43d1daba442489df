import StatusIndicator from '@cloudscape-design/components/status-indicator';

import { statusLabel, statusType } from '../lib/format';

// A status never breaks inside a word ("InS ervice" in a narrow column): it keeps to one line and the
// column grows instead.
export default function Status({ value, label }: { value?: string | null; label?: string }) {
  return (
    <span style={{ whiteSpace: 'nowrap' }}>
      <StatusIndicator type={statusType(value)}>{label ?? statusLabel(value)}</StatusIndicator>
    </span>
  );
}
