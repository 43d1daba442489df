// A suggested next step (a diagnosis's, an incident's) in a person's terms: where to do it in the console,
// read from the console's own table of operations, and the same call as a curl command to copy.

import operations from '../api/operations.json';

export interface NextStep {
  tool?: string | null; // the catalog operation id
  arguments?: Record<string, unknown>;
  rest?: string | null; // "POST /api/operations/op-1/retry"
  why: string;
  mutates?: boolean;
}

type Route = { path: string; where: string };
const ROUTES = operations.operations as Record<string, Route>;

/** Where a person runs ``step`` in the console, or null when the console has no place for it. */
export function whereInConsole(step: NextStep): string | null {
  return ROUTES[step.tool ?? '']?.where ?? null;
}

/** Where a person does what an error's next-step call (``METHOD /api/... [JSON body]``) does, read from the
 * console's table of operations by its method and route; null when the console has no place for it. */
export function whereForCall(call: string): string | null {
  const [method, target = ''] = call.split(' ', 2);
  const path = target.split('?', 1)[0];
  const route = Object.values(operations.operations as Record<string, Route & { method?: string }>).find(
    (r) => r.method === method && new RegExp(`^${r.path.replace(/{\w+}/g, '[^/]+')}$`).test(path),
  );
  return route?.where ?? null;
}

const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`; // POSIX shell single quotes

/** ``step`` as a curl command against ``apiBase`` (the API as this console reaches it, ending in /api or
 * its stage): the path's own fields stay in the path, the rest go in the query (GET, DELETE) or the JSON
 * body, and the token comes from $LAUNCHPOD_TOKEN, never from the page. */
export function curlCommand(step: NextStep, apiBase: string): string | null {
  if (!step.rest) return null;
  const [method, target] = step.rest.split(' ', 2);
  const [path, given = ''] = target.split('?', 2);
  const inPath = new Set(Array.from((ROUTES[step.tool ?? '']?.path ?? '').matchAll(/{(\w+)}/g), (m) => m[1]));
  if (inPath.has('name')) inPath.add('cluster'); // the agent's name for the cluster the REST path calls name
  const params = new URLSearchParams(given);
  const rest = Object.entries(step.arguments ?? {}).filter(
    ([key, value]) => !inPath.has(key) && value !== null && !params.has(key),
  );
  const bodyless = method === 'GET' || method === 'DELETE';
  if (bodyless) rest.forEach(([k, v]) => params.append(k, String(v)));
  const query = params.toString() ? `?${params.toString()}` : '';
  const url = `${apiBase.replace(/\/$/, '')}${path.replace(/^\/api(?=\/)/, '')}${query}`;
  const parts = [`curl -X ${method} "${url}"`, '-H "Authorization: Bearer $LAUNCHPOD_TOKEN"'];
  if (!bodyless) parts.push("-H 'Content-Type: application/json'", `-d ${quoted(JSON.stringify(Object.fromEntries(rest)))}`);
  return parts.join(' ');
}
