// Client-side checks read from the API's OpenAPI document, so the browser applies the same rules as the
// pydantic contracts. If the document cannot be fetched, the copies below (of contracts/common.py) apply;
// the server checks again either way and its 422 is mapped onto the field.

import { api, type JsonSchema, type OpenApiDoc } from './api';

const FALLBACK: Record<string, JsonSchema> = {
  CreateClusterRequest: {
    type: 'object',
    required: ['name', 'availabilityZones'],
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        maxLength: 63,
        pattern: '^[a-zA-Z0-9](-*[a-zA-Z0-9])*$',
        description: '1-63 letters, digits and hyphens; starts and ends with a letter or digit.',
      },
      availabilityZones: { type: 'array', minItems: 2, maxItems: 3, items: { type: 'string' } },
      kubernetesVersion: { type: 'string', enum: ['1.34'], default: '1.34' },
      network: { $ref: '#/components/schemas/NetworkRequest' },
    },
  },
  NetworkRequest: {
    type: 'object',
    properties: {
      vpcCidr: { anyOf: [{ type: 'string', pattern: '^(\\d{1,3}\\.){3}\\d{1,3}/\\d{1,2}$' }, { type: 'null' }] },
    },
  },
  // contracts/hyperpod.py
  CreateHyperPodRequest: {
    type: 'object',
    required: ['availabilityZone', 'instanceGroups'],
    properties: {
      instanceGroups: { type: 'array', minItems: 1, maxItems: 20, items: { $ref: '#/components/schemas/InstanceGroupRequest' } },
    },
  },
  InstanceGroupRequest: {
    type: 'object',
    required: ['name', 'instanceType', 'instanceCount'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-zA-Z0-9](-*[a-zA-Z0-9])*$' },
      instanceType: { type: 'string', pattern: '^ml\\.[a-z0-9-]+\\.[a-z0-9]+$' },
      instanceCount: { type: 'integer', minimum: 0, maximum: 6758 },
      ebsVolumeGb: { type: 'integer', minimum: 1, maximum: 16384, default: 500 },
    },
  },
  // contracts/storage.py
  ConfigureStorageRequest: {
    type: 'object',
    required: ['kind', 'storageName'],
    properties: {
      storageName: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
      namespace: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', default: 'default' },
      prefix: { anyOf: [{ type: 'string', maxLength: 512, pattern: "^[A-Za-z0-9!_.*'()=+-]+(/[A-Za-z0-9!_.*'()=+-]+)*/?$" }, { type: 'null' }] },
      fileSystemId: { anyOf: [{ type: 'string', pattern: '^fs-[0-9a-f]{8,21}$' }, { type: 'null' }] },
    },
  },
};

let docPromise: Promise<OpenApiDoc> | null = null;

export function loadSchemas(): Promise<OpenApiDoc> {
  docPromise ??= api
    .openapi()
    .catch(() => api.openapiFromDocs())
    .then(({ data }) => (data?.components?.schemas ? data : { components: { schemas: FALLBACK } }))
    .catch(() => ({ components: { schemas: FALLBACK } }));
  return docPromise;
}

function deref(doc: OpenApiDoc, schema: JsonSchema | undefined): JsonSchema | undefined {
  let current = schema;
  for (let i = 0; current?.$ref && i < 10; i += 1) {
    const name = current.$ref.split('/').pop() ?? '';
    current = doc.components?.schemas?.[name] ?? FALLBACK[name];
  }
  if (current?.anyOf) {
    const concrete = current.anyOf.find((option) => option.type !== 'null');
    return deref(doc, concrete);
  }
  if (current?.allOf?.length === 1) return deref(doc, current.allOf[0]);
  return current;
}

/** The schema of a dotted field path in a named model, e.g. ("CreateClusterRequest", "network.vpcCidr"). */
export function fieldSchema(doc: OpenApiDoc, model: string, path: string): { schema?: JsonSchema; required: boolean } {
  let parent = deref(doc, doc.components?.schemas?.[model] ?? FALLBACK[model]);
  let required = false;
  const parts = path.split('.');
  for (const [index, part] of parts.entries()) {
    if (!parent) return { required: false };
    required = index === parts.length - 1 && (parent.required ?? []).includes(part);
    parent = deref(doc, parent.properties?.[part] ?? FALLBACK[model]?.properties?.[part]);
  }
  return { schema: parent, required };
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
