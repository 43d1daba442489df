import StatusIndicator from '@cloudscape-design/components/status-indicator';

import { statusLabel, statusType } from '../lib/format';

export default function Status({ value, label }: { value?: string | null; label?: string }) {
  return <StatusIndicator type={statusType(value)}>{label ?? statusLabel(value)}</StatusIndicator>;
}
