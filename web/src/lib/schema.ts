// Client-side checks read from the API's OpenAPI document, so the browser applies the same rules as the
// pydantic contracts. The deployed API's own document comes first; if it cannot be fetched in a few seconds, the copy built
// into the UI (src/api/openapi.json, generated from the contracts and drift-checked) applies, in a chunk of
// its own so it is downloaded only then. The server checks again either way and its 422 is mapped onto the field.

import { api, type JsonSchema, type OpenApiDoc } from './api';

/** The document the UI was built with: the contracts of the same commit. */
export async function builtInDocument(): Promise<OpenApiDoc> {
  const { default: doc } = await import('../api/openapi.json');
  return doc as OpenApiDoc;
}

let docPromise: Promise<OpenApiDoc> | null = null;

/** How long a check waits for the API's document before it uses the built-in one: the wizard's Next waits on
 * the checks, and on a slow link or a busy API the document (800 KB) took long enough that Next seemed to do
 * nothing. */
export const PATIENCE_MS = 4000;

export function loadSchemas(): Promise<OpenApiDoc> {
  if (!docPromise) {
    const fromApi = api
      .openapi()
      .catch(() => api.openapiFromDocs())
      .then(({ data }) => (data?.components?.schemas ? data : builtInDocument()));
    const waited = new Promise<void>((resolve) => setTimeout(resolve, PATIENCE_MS)).then(() => builtInDocument());
    docPromise = Promise.race([fromApi, waited])
      .catch(() => builtInDocument())
      .catch(() => ({})); // not even the built-in chunk loads: no client-side rules, the server's 422 still applies
  }
  return docPromise;
}

/** Forget the document (tests). */
export function resetSchemas(): void {
  docPromise = null;
}

function deref(doc: OpenApiDoc, schema: JsonSchema | undefined): JsonSchema | undefined {
  let current = schema;
  for (let i = 0; current?.$ref && i < 10; i += 1) {
    const name = current.$ref.split('/').pop() ?? '';
    current = doc.components?.schemas?.[name];
  }
  if (current?.anyOf) {
    const concrete = current.anyOf.find((option) => option.type !== 'null');
    return deref(doc, concrete);
  }
  if (current?.allOf?.length === 1 && !current.properties) return deref(doc, current.allOf[0]);
  return current;
}

/** The schema of a dotted field path in a named model, e.g. ("CreateClusterRequest", "network.vpcCidr"). */
export function fieldSchema(doc: OpenApiDoc, model: string, path: string): { schema?: JsonSchema; required: boolean } {
  let parent = deref(doc, doc.components?.schemas?.[model]);
  let required = false;
  const parts = path.split('.');
  for (const [index, part] of parts.entries()) {
    if (!parent) return { required: false };
    required = index === parts.length - 1 && requiredIn(parent, part);
    parent = deref(doc, parent.properties?.[part]);
  }
  return { schema: parent, required };
}

/**
 * A renamed field (launchpod.contracts.naming) is required under its name or its older spelling, one of the
 * two: the document says so with a oneOf of `required` in the model's allOf rather than in `required`.
 */
function requiredIn(schema: JsonSchema, name: string): boolean {
  if ((schema.required ?? []).includes(name)) return true;
  return (schema.allOf ?? []).some((rule) => {
    const branches = (rule as { oneOf?: JsonSchema[] }).oneOf ?? [];
    return branches.length > 0 && branches.every((b) => b.required?.length === 1) && branches.some((b) => b.required?.[0] === name);
  });
}

/** The first broken rule for a string value, in words, or undefined when the value passes. */
export function checkString(
  doc: OpenApiDoc,
  model: string,
  path: string,
  value: string,
  describe?: string,
): string | undefined {
  const { schema, required } = fieldSchema(doc, model, path);
  if (!schema) return undefined;
  if (value === '') return required ? 'Required.' : undefined;
  if (schema.minLength !== undefined && value.length < schema.minLength)
    return `Use at least ${schema.minLength} characters.`;
  if (schema.maxLength !== undefined && value.length > schema.maxLength)
    return `Use at most ${schema.maxLength} characters (${value.length} now).`;
  if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value))
    return describe ?? schema.description ?? `Must match ${schema.pattern}.`;
  return undefined;
}

/** The broken bound for a whole number typed into a field, in words, or undefined when it passes. */
export function checkInteger(doc: OpenApiDoc, model: string, path: string, value: string): string | undefined {
  const { schema } = fieldSchema(doc, model, path);
  const min = schema?.minimum;
  const max = schema?.maximum;
  const range = min !== undefined && max !== undefined ? ` from ${min} to ${max}` : min !== undefined ? `, ${min} or more` : '';
  const text = value.trim();
  if (!/^\d+$/.test(text)) return `Enter a whole number${range}.`;
  const number = Number(text);
  if ((min !== undefined && number < min) || (max !== undefined && number > max)) return `Enter a whole number${range}.`;
  return undefined;
}

/**
 * Whether the API's document says `model` has `field`. A document without the model (or no document)
 * gives no answer, so the field is assumed accepted and the server has the last word.
 */
export function accepts(doc: OpenApiDoc, model: string, field: string): boolean {
  const properties = doc.components?.schemas?.[model]?.properties;
  return !properties || field in properties;
}

export function arrayBounds(doc: OpenApiDoc, model: string, path: string): { min?: number; max?: number } {
  const { schema } = fieldSchema(doc, model, path);
  return { min: schema?.minItems, max: schema?.maxItems };
}

/** The values an enum field allows and its default, as the document says (none without a document). */
export function enumOf(doc: OpenApiDoc, model: string, path: string): { values: string[]; default?: string } {
  const { schema } = fieldSchema(doc, model, path);
  const values = (schema?.enum ?? []).filter((value): value is string => typeof value === 'string');
  return { values, default: typeof schema?.default === 'string' ? schema.default : values[0] };
}
