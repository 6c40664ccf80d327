/**
 * The handlers' ajv schemas (JSON Schema draft-07 plus ajv's `nullable`) as OpenAPI 3.1 reads
 * them (JSON Schema 2020-12). The translation is mechanical, so the document shows the schema a
 * handler validates with and no hand-kept copy of it:
 * - `nullable: true` (ajv) becomes `null` among the types (and among the `enum` values);
 * - `definitions` becomes `$defs` (and `$ref`s into it follow);
 * - an `items` array (a tuple) becomes `prefixItems`, and `additionalItems` becomes `items`;
 * - ajv's `discriminator` over inline `oneOf` branches goes: it tells ajv which branch to check,
 *   which each branch's `const` tag already says, and OpenAPI's discriminator selects only named
 *   schemas (`$ref`), so an OpenAPI reader would take it to select none;
 * - an object that names no members (`{type: 'object'}`: tool parameters, prompt variables) says
 *   `additionalProperties: true`, which is what it means: generators read the silence as "no
 *   members" (openapi-typescript types it `Record<string, never>`, and no caller's value fits).
 * The input is never changed: the handlers compile the same objects.
 */

export type JsonSchema = Readonly<Record<string, unknown>>;

/** Keywords whose value is a map of names to schemas: the names are data, not keywords. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);
/** Keywords whose value is one schema, or a list of schemas. */
const SCHEMA_VALUES = new Set([
  'items',
  'additionalItems',
  'prefixItems',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
]);

export function toJsonSchema2020(schema: JsonSchema): JsonSchema {
  return translate(schema) as JsonSchema;
}

function translate(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(translate);
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === 'nullable' || (keyword === 'discriminator' && hasInlineBranches(node))) continue;
    out[keyword] = translateKeyword(keyword, value);
  }
  renameTuple(out);
  if (namesNoMembers(out)) out['additionalProperties'] = true;
  if ('definitions' in out) {
    out['$defs'] = out['definitions'];
    delete out['definitions'];
  }
  if (typeof out['$ref'] === 'string') out['$ref'] = out['$ref'].replace('#/definitions/', '#/$defs/');
  if (node['nullable'] === true) allowNull(out);
  return out;
}

function translateKeyword(keyword: string, value: unknown): unknown {
  if (SCHEMA_MAPS.has(keyword) && isObject(value))
    return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, translate(schema)]));
  if (SCHEMA_VALUES.has(keyword)) return translate(value);
  // enum, const, default, examples, required...: values, not schemas.
  return value;
}

/** Draft-07's tuple form `items: [..]` (+ `additionalItems`) is 2020-12's `prefixItems` (+ `items`). */
function renameTuple(schema: Record<string, unknown>): void {
  if (!Array.isArray(schema['items'])) return;
  schema['prefixItems'] = schema['items'];
  delete schema['items'];
  if ('additionalItems' in schema) {
    schema['items'] = schema['additionalItems'];
    delete schema['additionalItems'];
  }
}

const hasInlineBranches = (schema: Record<string, unknown>): boolean =>
  Array.isArray(schema['oneOf']) && schema['oneOf'].some((branch) => !isObject(branch) || !('$ref' in branch));

/** Keywords that name members, or compose schemas that may. */
const MEMBER_KEYWORDS = [
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'allOf',
  'anyOf',
  'oneOf',
  'if',
  '$ref',
];

const namesNoMembers = (schema: Record<string, unknown>): boolean =>
  (schema['type'] === 'object' || (Array.isArray(schema['type']) && schema['type'].includes('object'))) &&
  MEMBER_KEYWORDS.every((keyword) => !(keyword in schema));

function allowNull(schema: Record<string, unknown>): void {
  const type = schema['type'];
  if (typeof type === 'string') schema['type'] = [type, 'null'];
  else if (Array.isArray(type) && !type.includes('null')) schema['type'] = [...type, 'null'];
  const values = schema['enum'];
  if (Array.isArray(values) && !values.includes(null)) schema['enum'] = [...values, null];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
