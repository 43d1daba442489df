// Wire types, generated from the API's OpenAPI document (src/api/schema.d.ts, `npm run api-types`), so they
// cannot drift from the pydantic contracts in functions/launchpod/contracts. Names are the contracts' names.

import type { components } from '../api/schema';

type Schemas = components['schemas'];

export type Role = Schemas['Role'];

export type OperationStatus = Schemas['OperationStatus'];
export type PhaseStatus = Schemas['PhaseStatus'];
export type PhaseView = Schemas['PhaseView'];
export type OperationView = Schemas['OperationView'];
export type OperationAcceptedView = Schemas['OperationAcceptedView'];
export type NoopView = Schemas['NoopView'];

export type EksStatusView = Schemas['EksStatusView'];
export type HyperPodStatusView = Schemas['HyperPodStatusView'];
export type ClusterView = Schemas['ClusterView'];
export type AvailabilityZoneView = Schemas['AvailabilityZoneView'];
export type InstanceTypeOfferingView = Schemas['InstanceTypeOfferingView'];

export type ErrorDetail = Schemas['ErrorDetail'];
// The API's codes, plus the ones the client makes up for a failure without an envelope (NETWORK, HTTP_<status>).
export type ErrorView = Omit<Schemas['ErrorView'], 'code'> & { code: Schemas['ErrorCode'] | (string & {}) };

export const TERMINAL: ReadonlySet<OperationStatus> = new Set<OperationStatus>(['SUCCEEDED', 'FAILED', 'CANCELLED']);

export type DependencyView = Schemas['DependencyView'];
export type DependencyListView = Schemas['DependencyListView'];

// --- instance groups (contracts/instance_groups.py) ---
export type CapacityType = Schemas['InstanceGroupView']['capacityType'];
export type TaintView = Schemas['Taint'];
export type InstanceGroupView = Schemas['InstanceGroupView'];
export type AutoscalingStateView = Schemas['AutoscalingStateView'];
export type InstanceGroupListView = Schemas['InstanceGroupListView'];
export type InstanceGroupAcceptedView = Schemas['InstanceGroupAcceptedView'];

// ---- managed features, plans and storage
export type PlanStepView = Schemas['PlanStepView'];
export type PlanView = Schemas['PlanView'];
export type FeatureName = Schemas['FeatureView']['name'];
export type FeatureView = Schemas['FeatureView'];
export type FeatureListView = Schemas['FeatureListView'];
export type StorageView = Schemas['StorageView'];
export type StorageObjectListView = Schemas['StorageObjectListView'];

// ---- task governance: the cluster policy and the teams' compute quotas
export type TeamView = Schemas['TeamView'];
export type TeamListView = Schemas['TeamListView'];
export type TeamRequest = Schemas['TeamRequest'];
export type TeamAppliedView = Schemas['TeamAppliedView'];
export type GovernancePolicyView = Schemas['GovernancePolicyView'];

// ---- notifications: e-mail and chat-webhook subscribers per cluster and kind
export type NotificationSettingsView = Schemas['NotificationSettingsView'];
export type SubscriberView = Schemas['SubscriberView'];
export type SubscriberRequest = Schemas['SubscriberRequest'];
export type NotificationKind = Schemas['SubscriberView']['kinds'][number];
export type NotificationTestView = Schemas['NotificationTestView'];
export type RemovedSubscriberView = Schemas['RemovedSubscriberView'];
export type OfferingView = Schemas['OfferingView'];
export type TrainingPlanView = Schemas['TrainingPlanView'];
export type TrainingPlanListView = Schemas['TrainingPlanListView'];
export type OfferingListView = Schemas['OfferingListView'];
export type ExtensionOfferingView = Schemas['ExtensionOfferingView'];
export type ExtensionOfferingListView = Schemas['ExtensionOfferingListView'];
