/**
 * OpenAI tools and response formats carry JSON Schema; Gemini's `parameters` / `responseSchema`
 * take an OpenAPI subset that rejects unknown keywords with a 400 ("Unknown name
 * \"additionalProperties\""). A schema that fits the subset once bookkeeping keywords are dropped
 * goes as the subset (type names upper-cased); anything richer (`$ref`, `oneOf`, `const`, …)
 * goes unchanged as the JSON Schema variant (`parametersJsonSchema` / `responseJsonSchema`),
 * so no constraint is silently lost.
 */

export type ConvertedSchema =
  | { readonly kind: 'subset'; readonly schema: Record<string, unknown> }
  | { readonly kind: 'jsonSchema'; readonly schema: Record<string, unknown> };

/** Keywords of the OpenAPI-subset `Schema` (docs/upstreams.md §3.3). */
const SUBSET_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

/** Keywords that only annotate or (for `additionalProperties`, `strict`) tighten validation. */
const DROPPED_KEYWORDS: ReadonlySet<string> = new Set(['$schema', '$id', '$comment', 'additionalProperties', 'strict']);

class NotSubset extends Error {}

export function convertSchema(schema: Record<string, unknown>): ConvertedSchema {
  try {
    return { kind: 'subset', schema: toSubset(schema) };
  } catch (error) {
    if (error instanceof NotSubset) return { kind: 'jsonSchema', schema };
    throw error;
  }
}

/** An object schema without properties: Gemini refuses it as `parameters`, so it is left out. */
export function isEmptyObjectSchema(schema: Record<string, unknown>): boolean {
  const type = schema['type'];
  const properties = schema['properties'];
  const noProperties = properties === undefined || (isRecord(properties) && Object.keys(properties).length === 0);
  return (
    (type === undefined || type === 'object' || type === 'OBJECT') && noProperties && schema['anyOf'] === undefined
  );
}

function toSubset(schema: unknown): Record<string, unknown> {
  if (!isRecord(schema)) throw new NotSubset();
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    if (!SUBSET_KEYWORDS.has(key)) throw new NotSubset();
    switch (key) {
      case 'type':
        Object.assign(out, typeOf(value));
        break;
      case 'properties':
        if (!isRecord(value)) throw new NotSubset();
        out[key] = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, toSubset(property)]));
        break;
      case 'items':
        out[key] = toSubset(value);
        break;
      case 'anyOf':
        if (!Array.isArray(value)) throw new NotSubset();
        out[key] = value.map(toSubset);
        break;
      default:
        out[key] = value;
    }
  }
  // The subset knows only these string formats and refuses others (`uri`, `email`): a hint, dropped.
  if (out['type'] === 'STRING' && out['format'] !== undefined && !STRING_FORMATS.has(String(out['format'])))
    delete out['format'];
  return out;
}

const STRING_FORMATS: ReadonlySet<string> = new Set(['enum', 'date-time']);

/** `"string"` → `STRING`; `["string", "null"]` → `STRING` + `nullable`; several types do not fit. */
function typeOf(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') return { type: value.toUpperCase() };
  if (Array.isArray(value)) {
    const types = value.filter((t) => t !== 'null');
    if (types.length === 1 && typeof types[0] === 'string') {
      return { type: types[0].toUpperCase(), ...(types.length < value.length ? { nullable: true } : {}) };
    }
  }
  throw new NotSubset();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
