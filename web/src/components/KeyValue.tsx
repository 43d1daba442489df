// One labelled value of a detail's text grid (a ColumnLayout with variant="text-grid"): the key as Cloudscape
// labels keys, the value below it.

import type { ReactNode } from 'react';
import Box from '@cloudscape-design/components/box';

export default function KeyValue({ label, testId, children }: { label: string; testId?: string; children: ReactNode }) {
  return (
    <div data-testid={testId}>
      <Box variant="awsui-key-label">{label}</Box>
      {children}
    </div>
  );
}
