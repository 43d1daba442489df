import { describe, expect, it } from 'vitest';

import { identityFromToken } from '../auth';

function jwt(claims: object): string {
  const encode = (value: object) => btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${encode({ alg: 'none' })}.${encode(claims)}.sig`;
}

describe('who the token belongs to (for display only)', () => {
  it('reads the role from a sandbox token', () => {
    expect(identityFromToken('lp-operator-abc123')).toEqual({ subject: 'operator', role: 'operator' });
  });

  it('takes the highest role from Cognito groups', () => {
    const token = jwt({ 'cognito:groups': ['viewer', 'admin'], email: 'ana@example.com' });
    expect(identityFromToken(token)).toEqual({ subject: 'ana@example.com', role: 'admin' });
  });

  it('reads space-separated groups as the REST authorizer passes them', () => {
    expect(identityFromToken(jwt({ 'cognito:groups': 'viewer operator', sub: 'u1' })).role).toBe('operator');
  });

  it('knows no role for an opaque token', () => {
    expect(identityFromToken('opaque')).toEqual({ subject: null, role: null });
  });
});
