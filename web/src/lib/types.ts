// Wire types mirroring functions/launchpod/contracts (pydantic). Keep names identical to the contracts.

export type Role = 'viewer' | 'operator' | 'admin';

export type OperationStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
export type PhaseStatus = OperationStatus | 'SKIPPED';

export interface PhaseView {
  name: string;
  title: string;
  status: PhaseStatus;
  startedAt?: string | null;
  endedAt?: string | null;
  attempts: number;
  message?: string | null;
  error?: string | null;
}

export interface OperationView {
  id: string;
  kind: string;
  target: string;
  status: OperationStatus;
  phases: PhaseView[];
  request: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  createdBy?: string | null;
  attempt: number;
  error?: string | null;
  message?: string | null;
  statusUrl: string;
  statusTool: string;
}

export interface OperationAcceptedView {
  status: 'ACCEPTED';
  operation: OperationView;
  statusUrl: string;
  statusTool: string;
}

export interface NoopView {
  status: 'NOOP';
  message: string;
}

export interface EksStatusView {
  status: string;
  arn?: string | null;
  version?: string | null;
  endpoint?: string | null;
  vpcId?: string | null;
  subnetIds: string[];
  authenticationMode?: string | null;
  addons: Record<string, string>;
}

export interface HyperPodStatusView {
  status: string;
  arn?: string | null;
  nodeRecovery?: string | null;
  failureMessage?: string | null;
}

export interface ClusterView {
  name: string;
  region: string;
  source: 'created' | 'imported';
  eks: EksStatusView;
  hyperpod: HyperPodStatusView;
  activeOperationId?: string | null;
  createdAt?: string | null;
}

export interface AvailabilityZoneView {
  name: string;
  zoneId: string;
  state: string;
}

export interface InstanceTypeOfferingView {
  instanceType: string;
  zones: string[];
}

export interface ErrorDetail {
  field?: string | null;
  rule: string;
  message: string;
}

export interface ErrorView {
  code: string;
  message: string;
  details: ErrorDetail[];
  requestId?: string | null;
}

export const TERMINAL: ReadonlySet<OperationStatus> = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

export interface DependencyView {
  name: string;
  kind: 'addon' | 'manifest';
  required: boolean;
  pinned: string;
  installed?: string | null;
  state: string;
  drift: boolean;
  purpose: string;
  // why it is not ACTIVE yet when that is expected, e.g. a Deployment add-on that waits for nodes
  note?: string | null;
}

export interface DependencyListView {
  cluster: string;
  manifestVersion: string;
  items: DependencyView[];
}
