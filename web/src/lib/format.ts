// How times and statuses read in tables and the progress panel.

import type { StatusIndicatorProps } from '@cloudscape-design/components/status-indicator';

export function formatTime(value?: string | null): string {
  if (!value) return '-';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

// A plan's window as AWS states it: UTC, to the minute (2026-12-06 09:00 UTC), the same in every browser.
export function utcMinute(value?: string | null): string {
  return value ? new Date(value).toISOString().slice(0, 16).replace('T', ' ') + ' UTC' : '-';
}

export function formatDuration(start?: string | null, end?: string | null, now = Date.now()): string {
  if (!start) return '';
  const from = new Date(start).getTime();
  const to = end ? new Date(end).getTime() : now;
  if (Number.isNaN(from) || Number.isNaN(to)) return '';
  const seconds = Math.max(0, Math.round((to - from) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

const TYPES: Record<string, StatusIndicatorProps.Type> = {
  // operations and phases
  PENDING: 'pending',
  RUNNING: 'in-progress',
  SUCCEEDED: 'success',
  FAILED: 'error',
  CANCELLED: 'stopped',
  SKIPPED: 'not-started',
  // EKS
  ACTIVE: 'success',
  CREATING: 'in-progress',
  UPDATING: 'in-progress',
  DELETING: 'in-progress',
  NOT_FOUND: 'stopped',
  // HyperPod
  InService: 'success',
  Creating: 'in-progress',
  Updating: 'in-progress',
  Deleting: 'in-progress',
  RollingBack: 'in-progress',
  SystemUpdating: 'in-progress',
  Failed: 'error',
  NOT_CREATED: 'stopped',
  // dependencies
  NOT_INSTALLED: 'stopped',
  Applied: 'success',
  DEGRADED: 'warning',
  CREATE_FAILED: 'error',
  UPDATE_FAILED: 'error',
  // managed features and storage
  ENABLED: 'success',
  DISABLED: 'stopped',
  Bound: 'success',
  Pending: 'pending',
  Missing: 'warning',
  // training jobs and their pods
  Succeeded: 'success',
  Restarting: 'warning',
  Created: 'pending',
  // inference endpoints and their pods
  Ready: 'success',
  Deploying: 'in-progress',
  Degraded: 'warning',
  // training plans (Pending and Failed as above)
  Active: 'success',
  Scheduled: 'pending',
  Expired: 'stopped',
  // development environments (Spaces)
  Running: 'success',
  Starting: 'in-progress',
  Stopping: 'in-progress',
  Stopped: 'stopped',
};

export function statusType(status?: string | null): StatusIndicatorProps.Type {
  return (status && TYPES[status]) || 'info';
}

const LABELS: Record<string, string> = {
  PENDING: 'Pending',
  RUNNING: 'Running',
  SUCCEEDED: 'Succeeded',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
  SKIPPED: 'Skipped',
  ACTIVE: 'Active',
  CREATING: 'Creating',
  UPDATING: 'Updating',
  DELETING: 'Deleting',
  NOT_FOUND: 'Not found',
  NOT_CREATED: 'Not created',
  InService: 'InService',
  NOT_INSTALLED: 'Not installed',
  ENABLED: 'Enabled',
  DISABLED: 'Disabled',
};

export function statusLabel(status?: string | null): string {
  if (!status) return '-';
  return LABELS[status] ?? status;
}

/** "create-control-plane" -> "Create control plane" */
export function kindTitle(kind: string): string {
  const text = kind.replace(/-/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
