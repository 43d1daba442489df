// The REST client: one place that adds the token, parses the error envelope and reacts to 401. Every call
// names its catalog operation (src/api/operations.json): call() takes the route from there, so the table of
// what the console uses cannot drift from what it calls (tests/web/test_console_parity.py reads both).

import operations from '../api/operations.json';
import { config } from './config';
import { getToken, setToken } from './auth';
import type {
  AvailabilityZoneView,
  ClusterView,
  DependencyListView,
  ErrorView,
  InstanceGroupAcceptedView,
  InstanceGroupListView,
  FeatureListView,
  GovernancePolicyView,
  NotificationSettingsView,
  NotificationTestView,
  RemovedSubscriberView,
  SubscriberRequest,
  PlanView,
  TeamAppliedView,
  TeamListView,
  TeamRequest,
  StorageObjectListView,
  StorageView,
  InstanceTypeOfferingView,
  NoopView,
  OperationAcceptedView,
  OperationStatus,
  OperationView,
  OfferingListView,
  Role,
  ExtensionOfferingListView,
  TrainingPlanListView,
  TrainingPlanView,
} from './types';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorView,
  ) {
    super(body.message);
  }

  /** Errors of the details whose dotted path starts with `body.` keyed by the rest, e.g. "availabilityZones.1". */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const detail of this.body.details ?? []) {
      if (!detail.field) continue;
      const path = detail.field.replace(/^body\.?/, '');
      out[path] = out[path] ? `${out[path]} ${detail.message}` : detail.message;
    }
    return out;
  }
}

function url(path: string, query?: Query): string {
  const base = config().apiUrl.replace(/\/$/, '');
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    // a list is the parameter repeated (regions=us-east-1&regions=us-west-2)
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return `${base}${path}${qs ? `?${qs}` : ''}`;
}

async function request<T>(
  method: string,
  path: string,
  options: { body?: unknown; query?: Query; token?: string } = {},
): Promise<{ status: number; data: T }> {
  const token = options.token ?? getToken();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch (error) {
    throw new ApiError(0, {
      code: 'NETWORK',
      message: `Cannot reach the API: ${String(error)}`,
      details: [],
      requestId: null,
    });
  }
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const body = (data && typeof data === 'object' && 'message' in data
      ? data
      : { code: `HTTP_${response.status}`, message: text || response.statusText, details: [] }) as ErrorView;
    // A rejected token ends the session; the sign-in dialog comes back. A token passed explicitly is
    // being tried out by that dialog, which shows the error itself.
    if (response.status === 401 && !options.token) setToken(null);
    throw new ApiError(response.status, { ...body, details: body.details ?? [] });
  }
  return { status: response.status, data: data as T };
}

type Query = Record<string, string | number | string[] | undefined>;
type Operations = typeof operations.operations;
export type OperationId = keyof Operations;
export type CallOptions = { body?: unknown; query?: Query; token?: string };

/** The console path of ``id``'s route with ``params`` filled in (each encoded); the API base is prepended later. */
export function routeOf(id: OperationId, params: Record<string, string> = {}): { method: string; path: string } {
  const route = operations.operations[id];
  const path = route.path.replace(/^\/api/, '').replace(/{(\w+)}/g, (_, key: string) => {
    if (params[key] === undefined) throw new Error(`${id} needs ${key}`);
    return encodeURIComponent(params[key]);
  });
  return { method: route.method, path };
}

/** Call the catalog operation ``id``. */
export function call<T>(id: OperationId, params: Record<string, string> = {}, options: CallOptions = {}) {
  const { method, path } = routeOf(id, params);
  return request<T>(method, path, options);
}

/** The plan of the catalog operation ``id`` (its dry run): what it would do, with nothing started. */
export function plan<T = PlanView | NoopView>(id: OperationId, params: Record<string, string> = {}, options: CallOptions = {}) {
  return call<T>(id, params, { ...options, query: { ...options.query, dryRun: 'true' } });
}

const c = (name: string) => ({ name });

export const api = {
  whoami: (token?: string) => call<{ subject?: string; role?: Role }>('get_me', {}, { token }),
  // The active cluster is kept by the API, so the console and the user's agents share it.
  preferences: () => call<{ subject: string; activeCluster: string | null }>('get_preferences'),
  setActiveCluster: (activeCluster: string | null) =>
    call<{ subject: string; activeCluster: string | null }>('set_preferences', {}, { body: { activeCluster } }),
  regions: () => call<{ default: string; items: string[] }>('list_regions', {}),
  // region: where the cluster is to be created; omitted, Launchpod's own Region.
  availabilityZones: (token?: string, region?: string) =>
    call<{ region: string; items: AvailabilityZoneView[] }>('list_availability_zones', {}, { token, query: { region } }),
  instanceTypes: (zone?: string, region?: string) =>
    call<{ region: string; items: InstanceTypeOfferingView[] }>('list_instance_types', {}, { query: { availabilityZone: zone, region } }),
  // Every cluster: the API lists them a page at a time (nextToken), the console shows them all.
  clusters: async () => {
    const items: ClusterView[] = [];
    let nextToken: string | undefined;
    let status = 200;
    do {
      const page = await call<{ items: ClusterView[]; nextToken?: string | null }>('list_clusters', {}, {
        query: { limit: 200, nextToken },
      });
      items.push(...page.data.items);
      status = page.status;
      nextToken = page.data.nextToken ?? undefined;
    } while (nextToken);
    return { status, data: { items } };
  },
  cluster: (name: string) => call<ClusterView>('get_cluster', c(name)),
  createCluster: (body: unknown) => call<OperationAcceptedView | NoopView>('create_cluster', {}, { body }),
  createHyperPod: (name: string, body: unknown, dryRun = false) =>
    call<OperationAcceptedView | NoopView | PlanView>('create_hyperpod', c(name), {
      body,
      query: dryRun ? { dryRun: 'true' } : undefined,
    }),
  // control plane, dependencies and HyperPod as one operation
  provisionCluster: (body: unknown) => call<OperationAcceptedView | NoopView>('provision_cluster', {}, { body }),
  dependencies: (name: string) => call<DependencyListView>('list_dependencies', c(name)),
  reconcileDependencies: (name: string, includeOptional: boolean) =>
    call<OperationAcceptedView | NoopView>('reconcile_dependencies', c(name), {
      body: includeOptional ? { includeOptional } : {},
    }),
  // ---- managed features and storage: mutations answer 202, 200 NOOP, or 200 PLANNED with dryRun
  features: (name: string) => call<FeatureListView>('list_features', c(name)),
  updateFeatures: (name: string, body: unknown, dryRun = false) =>
    call<OperationAcceptedView | NoopView | PlanView>('update_features', c(name), {
      body,
      query: dryRun ? { dryRun: 'true' } : undefined,
    }),
  // task governance: teams are SageMaker compute quotas, changed at once (200), NOOP, or PLANNED
  teams: (name: string) => call<TeamListView>('list_teams', c(name)),
  putTeam: (name: string, team: string, body: TeamRequest, dryRun = false) =>
    call<TeamAppliedView | NoopView | PlanView>('put_team', { name, team }, {
      body,
      query: dryRun ? { dryRun: 'true' } : undefined,
    }),
  deleteTeam: (name: string, team: string) =>
    call<{ deleted: boolean; message: string }>('delete_team', { name, team }, { query: { confirm: team } }),
  governancePolicy: (name: string) => call<GovernancePolicyView>('get_governance_policy', c(name)),
  // notifications: subscribers written at once (200), NOOP, or PLANNED; a test message
  notifications: (name: string) => call<NotificationSettingsView>('list_notification_subscribers', c(name)),
  addSubscriber: (name: string, body: SubscriberRequest) =>
    call<NotificationSettingsView | NoopView>('add_notification_subscriber', c(name), { body }),
  removeSubscriber: (name: string, id: string) =>
    call<RemovedSubscriberView | NoopView>('remove_notification_subscriber', { name, subscriberId: id }),
  testNotification: (name: string) => call<NotificationTestView>('send_test_notification', c(name), { body: {} }),
  storage: (name: string) => call<{ cluster: string; items: StorageView[] }>('list_storage', c(name)),
  configureStorage: (name: string, body: unknown) =>
    call<OperationAcceptedView | NoopView>('configure_storage', c(name), { body }),
  deleteStorage: (name: string, storageName: string, dryRun = false) =>
    call<{ deleted: string[] } | NoopView | PlanView>('delete_storage', { name, storageName }, {
      query: dryRun ? { dryRun: 'true' } : undefined,
    }),
  browseStorage: (name: string, storageName: string, prefix?: string) =>
    call<StorageObjectListView>('browse_storage', { name, storageName }, { query: { prefix } }),
  operations: (query: { cluster?: string; status?: OperationStatus; limit?: number } = {}) =>
    call<{ items: OperationView[] }>('list_operations', {}, { query: { limit: 100, ...query } }),
  operation: (id: string) => call<OperationView>('get_operation', { operationId: id }),
  retry: (id: string) => call<OperationAcceptedView>('retry_operation', { operationId: id }, { body: {} }),
  cancel: (id: string, reason?: string) =>
    call<OperationView>('cancel_operation', { operationId: id }, { body: reason ? { reason } : {} }),
  // --- instance groups ---
  instanceGroups: (name: string) => call<InstanceGroupListView>('list_instance_groups', c(name)),
  addInstanceGroup: (name: string, body: unknown) =>
    call<InstanceGroupAcceptedView>('add_instance_group', c(name), { body }),
  updateInstanceGroup: (name: string, group: string, body: unknown) =>
    call<OperationAcceptedView | NoopView>('update_instance_group', { name, group }, { body }),
  setAutoscaling: (name: string, body: { enabled: boolean; instanceGroups?: string[]; consolidateAfterSeconds?: number }) =>
    call<OperationAcceptedView | NoopView>('set_autoscaling', c(name), { body }),
  // --- end instance groups ---
  // ---- training plans: a purchase answers the plan, 200 NOOP, or 200 PLANNED with dryRun
  trainingPlans: () => call<TrainingPlanListView>('list_training_plans', {}),
  trainingPlan: (plan: string) => call<TrainingPlanView>('get_training_plan', { plan }),
  searchOfferings: (query: Query) =>
    call<OfferingListView>('search_training_plan_offerings', {}, { query }),
  buyTrainingPlan: (body: unknown, dryRun = false) =>
    call<TrainingPlanView | NoopView | PlanView>('buy_training_plan', {}, {
      body,
      query: dryRun ? { dryRun: 'true' } : undefined,
    }),
  extensionOfferings: (plan: string) =>
    call<ExtensionOfferingListView>('search_training_plan_extensions', { plan }),
  extendTrainingPlan: (plan: string, body: { offeringId: string; confirmPrice: string }, dryRun = false) =>
    call<TrainingPlanView | NoopView | PlanView>('extend_training_plan', { plan }, {
      body,
      query: dryRun ? { dryRun: 'true' } : undefined,
    }),
  // The API's own description (not a catalog operation): the forms read their limits from it.
  openapi: () => request<OpenApiDoc>('GET', '/openapi.json'),
  // powertools' Swagger UI route serves the same document
  openapiFromDocs: () => request<OpenApiDoc>('GET', '/docs', { query: { format: 'json' } }),
};

export interface OpenApiDoc {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
}
