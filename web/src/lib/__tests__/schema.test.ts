import { describe, expect, it } from 'vitest';

import { checkString } from '../schema';

// Without a document the built-in copy of the contract applies (what the UI does when /api/openapi.json fails).
const doc = {};

describe('client-side checks from the request schema', () => {
  it('accepts a SageMaker-style cluster name', () => {
    expect(checkString(doc, 'CreateClusterRequest', 'name', 'ml-team-a')).toBeUndefined();
  });

  it.each(['-lead', 'trail-', 'under_score', 'x'.repeat(64)])('refuses %s', (name) => {
    expect(checkString(doc, 'CreateClusterRequest', 'name', name)).toBeTruthy();
  });

  it('requires the name', () => {
    expect(checkString(doc, 'CreateClusterRequest', 'name', '')).toBe('Required.');
  });

  it('checks a CIDR through the nested network model', () => {
    expect(checkString(doc, 'CreateClusterRequest', 'network.vpcCidr', '10.0.0.0/16')).toBeUndefined();
    expect(checkString(doc, 'CreateClusterRequest', 'network.vpcCidr', '10.0.0.0')).toBeTruthy();
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
