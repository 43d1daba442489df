import { afterEach, describe, expect, it, vi } from 'vitest';

import { api, type OpenApiDoc } from '../api';
import { PATIENCE_MS, builtInDocument, checkInteger, checkString, enumOf, loadSchemas, resetSchemas } from '../schema';

// The document built into the UI (src/api/openapi.json, generated from the contracts): what the UI uses when
// /api/openapi.json cannot be fetched.
const doc: OpenApiDoc = await builtInDocument();

describe('client-side checks from the request schema', () => {
  it('accepts a SageMaker-style cluster name', () => {
    expect(checkString(doc, 'CreateClusterRequest', 'cluster', 'ml-team-a')).toBeUndefined();
  });

  it.each(['-lead', 'trail-', 'under_score', 'x'.repeat(64)])('refuses %s', (name) => {
    expect(checkString(doc, 'CreateClusterRequest', 'cluster', name)).toBeTruthy();
  });

  it('requires the name', () => {
    expect(checkString(doc, 'CreateClusterRequest', 'cluster', '')).toBe('Required.');
  });

  it('checks a CIDR through the nested network model', () => {
    expect(checkString(doc, 'CreateClusterRequest', 'network.vpcCidr', '10.0.0.0/16')).toBeUndefined();
    expect(checkString(doc, 'CreateClusterRequest', 'network.vpcCidr', '10.0.0.0')).toBeTruthy();
  });

  it('bounds an instance group as the contract does (InstanceGroupRequest.instanceCount)', () => {
    expect(checkInteger(doc, 'InstanceGroupRequest', 'instanceCount', '6758')).toBeUndefined();
    expect(checkInteger(doc, 'InstanceGroupRequest', 'instanceCount', '6759')).toMatch(/0 to 6758/);
  });

  it('offers the Kubernetes versions the contract allows, its default first', () => {
    const versions = enumOf(doc, 'CreateClusterRequest', 'kubernetesVersion');
    expect(versions.values.length).toBeGreaterThan(0);
    expect(versions.values).toContain(versions.default);
    expect(enumOf(doc, 'ConfigureStorageRequest', 'kind').values).toEqual(['s3', 'fsx']);
    expect(enumOf({}, 'CreateClusterRequest', 'kubernetesVersion')).toEqual({ values: [], default: undefined });
  });

  it('refuses an S3 prefix with a leading slash, as the contract does', () => {
    expect(checkString(doc, 'ConfigureStorageRequest', 'prefix', 'datasets/imagenet')).toBeUndefined();
    expect(checkString(doc, 'ConfigureStorageRequest', 'prefix', '/datasets')).toBeTruthy();
  });

  it('a renamed field is required under its name when the document says one spelling or the other', () => {
    const renamed = { type: 'object', properties: { cluster: {}, name: {} }, allOf: [{ oneOf: [{ required: ['cluster'] }, { required: ['name'] }] }] };
    const openapi = { components: { schemas: { CreateClusterRequest: renamed } } } as unknown as OpenApiDoc;
    expect(checkString(openapi, 'CreateClusterRequest', 'cluster', '')).toBe('Required.');
    expect(checkString(openapi, 'CreateClusterRequest', 'cluster', 'ml-team-a')).toBeUndefined();
  });

  it('without any document there is no client-side rule; the server has the last word', () => {
    expect(checkString({}, 'CreateClusterRequest', 'name', '-lead')).toBeUndefined();
  });

  it('reads rules from an OpenAPI document when there is one', () => {
    const openapi = {
      components: {
        schemas: { CreateClusterRequest: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 3 } } } },
      },
    };
    expect(checkString(openapi, 'CreateClusterRequest', 'name', 'abcd')).toMatch(/at most 3/);
  });
});

describe('the document the checks read', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    resetSchemas();
  });

  it('uses the built-in document when the API has not answered within its patience', async () => {
    vi.useFakeTimers();
    const never = new Promise<never>(() => undefined);
    const fetched = vi.spyOn(api, 'openapi').mockReturnValue(never as ReturnType<typeof api.openapi>);
    const loading = loadSchemas();
    await vi.advanceTimersByTimeAsync(PATIENCE_MS + 1);
    const loaded = await loading;
    expect(fetched).toHaveBeenCalledOnce();
    expect(loaded.components?.schemas?.CreateClusterRequest).toBeDefined();
  });

  it("prefers the API's own document when it answers in time", async () => {
    const own = { openapi: '3.1.0', components: { schemas: { Deployed: { type: 'object' } } } } as unknown as OpenApiDoc;
    vi.spyOn(api, 'openapi').mockResolvedValue({ data: own } as Awaited<ReturnType<typeof api.openapi>>);
    expect((await loadSchemas()).components?.schemas?.Deployed).toBeDefined();
  });
});
