import type { JsonSchema } from './json-schema-2020.js';

/** A reference to one of the document's named schemas (components.schemas). */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** `{success: true, data}`: how non-gateway JSON routes answer (docs/interface.md §2.14). */
export const enveloped = (data: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['success', 'data'],
  properties: { success: { const: true }, data },
});

/** An object whose listed properties are all present. */
export const record = (properties: Readonly<Record<string, JsonSchema>>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required: Object.keys(properties),
  properties,
});

export const text = (description?: string): JsonSchema => ({ type: 'string', ...(description ? { description } : {}) });
export const integer = (description?: string): JsonSchema => ({
  type: 'integer',
  ...(description ? { description } : {}),
});
export const dateTime = (description?: string): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  ...(description ? { description } : {}),
});
export const nullableText = (description: string): JsonSchema => ({ type: ['string', 'null'], description });
