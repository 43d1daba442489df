// schema.d.ts is generated from openapi.json by `npm run api-types` (openapi-typescript); this fails when one
// changed without the other. tests/contracts/test_openapi_document.py checks openapi.json against the API.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';


const web = resolve(__dirname, '../../..');

/** Runs the package.json `api-types` script with its output sent to a scratch file, and returns that file. */
function generate(input = 'src/api/openapi.json'): string {
  const script: string = JSON.parse(readFileSync(join(web, 'package.json'), 'utf8')).scripts['api-types'];
  const [bin, ...args] = script.split(/\s+/);
  const outputAt = args.indexOf('--output') + 1;
  expect(bin).toBe('openapi-typescript');
  expect(outputAt).toBeGreaterThan(0);
  const dir = mkdtempSync(join(tmpdir(), 'api-types-'));
  try {
    args[outputAt] = join(dir, 'schema.d.ts');
    args[args.indexOf('src/api/openapi.json')] = input;
    execFileSync(join(web, 'node_modules/.bin', bin), args, { cwd: web, stdio: 'pipe' });
    return readFileSync(args[outputAt], 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the generated API types', () => {
  it('schema.d.ts is what openapi-typescript makes of openapi.json', () => {
    const committed = readFileSync(join(web, 'src/api/schema.d.ts'), 'utf8');
    expect(generate(), 'schema.d.ts is stale: cd web && npm run api-types, and commit it').toBe(committed);
  }, 60_000);

  it('a changed document gives different types, so the check above can fail', () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-doc-'));
    try {
      const changed = JSON.parse(readFileSync(join(web, 'src/api/openapi.json'), 'utf8'));
      changed.components.schemas.MeView.properties.driftProbe = { type: 'string' };
      const path = join(dir, 'openapi.json');
      writeFileSync(path, JSON.stringify(changed));
      const types = generate(path);
      expect(types).toContain('driftProbe?: string;');
      expect(types).not.toBe(readFileSync(join(web, 'src/api/schema.d.ts'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
