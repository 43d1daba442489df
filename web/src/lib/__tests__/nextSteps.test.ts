import { describe, expect, it } from 'vitest';

import { curlCommand, whereForCall, whereInConsole } from '../nextSteps';

describe('next steps', () => {
  it('say where the console does the step', () => {
    expect(whereInConsole({ tool: 'retry_operation', why: 'x' })).toBe('Operation: Retry from failed phase');
    expect(whereInConsole({ tool: 'no_such_tool', why: 'x' })).toBeNull();
    expect(whereInConsole({ tool: null, why: 'alert a person' })).toBeNull();
  });

  it('say where the console does an error\'s next-step call, by its method and route', () => {
    expect(whereForCall('POST /api/clusters/ml-a/dependencies {"includeOptional": true}')).toBe('Cluster: Dependencies, Install');
    expect(whereForCall('GET /api/clusters/ml-a/nodes')).toBe('Cluster: Nodes');
    expect(whereForCall('DELETE /api/clusters/ml-a/nodes')).toBeNull();
    expect(whereForCall('POST /api/nowhere')).toBeNull();
  });

  it('copy as curl against the API the console uses, the path fields in the path and the rest in the body', () => {
    const step = {
      tool: 'reboot_nodes',
      arguments: { name: 'ml-a', nodeIds: ['i-0123456789abcdef0'] },
      rest: 'POST /api/clusters/ml-a/nodes/reboot',
      why: 'x',
    };
    expect(curlCommand(step, 'https://api.example.com/prod/api/')).toBe(
      'curl -X POST "https://api.example.com/prod/api/clusters/ml-a/nodes/reboot" -H "Authorization: Bearer $LAUNCHPOD_TOKEN"' +
        ` -H 'Content-Type: application/json' -d '{"nodeIds":["i-0123456789abcdef0"]}'`,
    );
  });

  it('put a read or delete step in the query, and quote for the shell', () => {
    const read = { tool: 'diagnose_nccl', arguments: { name: 'ml-a', jobName: 'it\'s' }, rest: 'GET /api/clusters/ml-a/diagnosis/nccl', why: 'x' };
    expect(curlCommand(read, 'http://127.0.0.1:3099/api')).toBe(
      'curl -X GET "http://127.0.0.1:3099/api/clusters/ml-a/diagnosis/nccl?jobName=it%27s" -H "Authorization: Bearer $LAUNCHPOD_TOKEN"',
    );
    const odd = { tool: 'put_team', arguments: { name: 'a', team: 't', note: "it's" }, rest: 'PUT /api/clusters/a/teams/t', why: 'x' };
    expect(curlCommand(odd, '/api')).toContain(`-d '{"note":"it'\\''s"}'`);
    expect(curlCommand({ why: 'alert a person' }, '/api')).toBeNull();
  });

  it('take the agent\'s cluster argument as the path\'s name and keep a query the step already has', () => {
    const again = {
      tool: 'create_hyperpod',
      arguments: { cluster: 'ml-a', availabilityZone: 'us-east-1b' },
      rest: 'POST /api/clusters/ml-a/hyperpod',
      why: 'x',
    };
    expect(curlCommand(again, '/api')).toContain(`-d '{"availabilityZone":"us-east-1b"}'`);
    const gone = {
      tool: 'delete_hyperpod',
      arguments: { cluster: 'ml-a', confirm: 'ml-a' },
      rest: 'DELETE /api/clusters/ml-a/hyperpod?confirm=ml-a',
      why: 'x',
    };
    expect(curlCommand(gone, '/api')).toBe(
      'curl -X DELETE "/api/clusters/ml-a/hyperpod?confirm=ml-a" -H "Authorization: Bearer $LAUNCHPOD_TOKEN"',
    );
  });
});
