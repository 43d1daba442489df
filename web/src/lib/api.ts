// The REST client: one place that adds the token, parses the error envelope and reacts to 401.

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

function url(path: string, query?: Record<string, string | number | undefined>): string {
  const base = config().apiUrl.replace(/\/$/, '');
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return `${base}${path}${qs ? `?${qs}` : ''}`;
}

export async function request<T>(
  method: string,
  path: string,
  options: { body?: unknown; query?: Record<string, string | number | undefined>; token?: string } = {},
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

export const api = {
  whoami: (token?: string) => request<{ subject?: string; role?: Role }>('GET', '/me', { token }),
  // The active cluster is kept by the API, so the console and the user's agents share it.
  preferences: () => request<{ subject: string; activeCluster: string | null }>('GET', '/preferences'),
  setActiveCluster: (activeCluster: string | null) =>
    request<{ subject: string; activeCluster: string | null }>('PUT', '/preferences', { body: { activeCluster } }),
  availabilityZones: (token?: string) =>
    request<{ region: string; items: AvailabilityZoneView[] }>('GET', '/catalog/availability-zones', { token }),
  instanceTypes: (zone?: string) =>
    request<{ region: string; items: InstanceTypeOfferingView[] }>('GET', '/catalog/instance-types', {
      query: { zone },
    }),
  // Every cluster: the API lists them a page at a time (nextToken), the console shows them all.
  clusters: async () => {
    const items: ClusterView[] = [];
    let nextToken: string | undefined;
    let status = 200;
    do {
      const page = await request<{ items: ClusterView[]; nextToken?: string | null }>('GET', '/clusters', {
        query: { limit: 200, nextToken },
      });
      items.push(...page.data.items);
      status = page.status;
      nextToken = page.data.nextToken ?? undefined;
    } while (nextToken);
    return { status, data: { items } };
  },
  cluster: (name: string) => request<ClusterView>('GET', `/clusters/${encodeURIComponent(name)}`),
  createCluster: (body: unknown) =>
    request<OperationAcceptedView | NoopView>('POST', '/clusters', { body }),
  createHyperPod: (name: string, body: unknown, dryRun = false) =>
    request<OperationAcceptedView | NoopView | PlanView>('POST', `/clusters/${encodeURIComponent(name)}/hyperpod`, {
      body,
      query: dryRun ? { dryRun: 'true' } : undefined,
    }),
  // control plane, dependencies and HyperPod as one operation
  provisionCluster: (body: unknown) =>
    request<OperationAcceptedView | NoopView>('POST', '/clusters/provision', { body }),
  dependencies: (name: string) =>
    request<DependencyListView>('GET', `/clusters/${encodeURIComponent(name)}/dependencies`),
  reconcileDependencies: (name: string, includeOptional: boolean) =>
    request<OperationAcceptedView | NoopView>('POST', `/clusters/${encodeURIComponent(name)}/dependencies`, {
      body: includeOptional ? { includeOptional } : {},
    }),
  // ---- managed features and storage (issue 13): mutations answer 202, 200 NOOP, or 200 PLANNED with dryRun
  features: (name: string) => request<FeatureListView>('GET', `/clusters/${encodeURIComponent(name)}/features`),
  updateFeatures: (name: string, body: unknown, dryRun = false) =>
    request<OperationAcceptedView | NoopView | PlanView>('PATCH', `/clusters/${encodeURIComponent(name)}/features`, {
      body,
      query: dryRun ? { dryRun: 'true' } : undefined,
    }),
  // task governance (issue 13): teams are SageMaker compute quotas, changed at once (200), NOOP, or PLANNED
  teams: (name: string) => request<TeamListView>('GET', `/clusters/${encodeURIComponent(name)}/teams`),
  putTeam: (name: string, team: string, body: TeamRequest, dryRun = false) =>
    request<TeamAppliedView | NoopView | PlanView>(
      'PUT',
      `/clusters/${encodeURIComponent(name)}/teams/${encodeURIComponent(team)}`,
      { body, query: dryRun ? { dryRun: 'true' } : undefined },
    ),
  deleteTeam: (name: string, team: string) =>
    request<{ deleted: boolean; message: string }>(
      'DELETE',
      `/clusters/${encodeURIComponent(name)}/teams/${encodeURIComponent(team)}`,
      { query: { confirm: team } },
    ),
  governancePolicy: (name: string) =>
    request<GovernancePolicyView>('GET', `/clusters/${encodeURIComponent(name)}/task-governance/policy`),
  storage: (name: string) =>
    request<{ cluster: string; items: StorageView[] }>('GET', `/clusters/${encodeURIComponent(name)}/storage`),
  configureStorage: (name: string, body: unknown) =>
    request<OperationAcceptedView | NoopView>('POST', `/clusters/${encodeURIComponent(name)}/storage`, { body }),
  deleteStorage: (name: string, storageName: string, dryRun = false) =>
    request<{ deleted: string[] } | NoopView | PlanView>(
      'DELETE',
      `/clusters/${encodeURIComponent(name)}/storage/${encodeURIComponent(storageName)}`,
      { query: dryRun ? { dryRun: 'true' } : undefined },
    ),
  browseStorage: (name: string, storageName: string, prefix?: string) =>
    request<StorageObjectListView>(
      'GET',
      `/clusters/${encodeURIComponent(name)}/storage/${encodeURIComponent(storageName)}/objects`,
      { query: { prefix } },
    ),
  operations: (query: { cluster?: string; status?: OperationStatus; limit?: number } = {}) =>
    request<{ items: OperationView[] }>('GET', '/operations', { query: { limit: 100, ...query } }),
  operation: (id: string) => request<OperationView>('GET', `/operations/${encodeURIComponent(id)}`),
  retry: (id: string) =>
    request<OperationAcceptedView>('POST', `/operations/${encodeURIComponent(id)}/retry`, { body: {} }),
  cancel: (id: string, reason?: string) =>
    request<OperationView>('POST', `/operations/${encodeURIComponent(id)}/cancel`, {
      body: reason ? { reason } : {},
    }),
  // --- instance groups ---
  instanceGroups: (name: string) =>
    request<InstanceGroupListView>('GET', `/clusters/${encodeURIComponent(name)}/instance-groups`),
  addInstanceGroup: (name: string, body: unknown) =>
    request<InstanceGroupAcceptedView>('POST', `/clusters/${encodeURIComponent(name)}/instance-groups`, { body }),
  updateInstanceGroup: (name: string, group: string, body: unknown) =>
    request<OperationAcceptedView | NoopView>(
      'PATCH',
      `/clusters/${encodeURIComponent(name)}/instance-groups/${encodeURIComponent(group)}`,
      { body },
    ),
  deleteInstanceGroup: (name: string, group: string) =>
    request<OperationAcceptedView>(
      'DELETE',
      `/clusters/${encodeURIComponent(name)}/instance-groups/${encodeURIComponent(group)}`,
      { query: { confirm: group } },
    ),
  setAutoscaling: (name: string, body: { enabled: boolean; groups?: string[]; consolidateAfterSeconds?: number }) =>
    request<OperationAcceptedView | NoopView>('PUT', `/clusters/${encodeURIComponent(name)}/autoscaling`, { body }),
  // --- end instance groups ---
  // ---- training plans (issue 33): a purchase answers the plan, 200 NOOP, or 200 PLANNED with dryRun
  trainingPlans: () => request<TrainingPlanListView>('GET', '/training-plans'),
  searchOfferings: (query: Record<string, string | number | undefined>) =>
    request<OfferingListView>('GET', '/training-plans/offerings', { query }),
  buyTrainingPlan: (body: unknown, dryRun = false) =>
    request<TrainingPlanView | NoopView | PlanView>('POST', '/training-plans', {
      body,
      query: dryRun ? { dryRun: 'true' } : undefined,
    }),
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
