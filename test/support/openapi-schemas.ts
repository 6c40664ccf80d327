import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * The OpenAPI document's schemas as a JSON Schema 2020-12 validator (ajv), so tests can check
 * that each schema is valid JSON Schema and that real answers fit the schemas documented for them.
 */
export function documentSchemas(document: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(document, 'openapi.json');
  const components = document['components'] as {
    schemas: Record<string, object>;
    requestBodies?: Record<string, { content: Record<string, { schema: object }> }>;
  };
  const bodies = Object.entries(components.requestBodies ?? {}).map(
    ([name, body]) => [`requestBodies/${name}`, body.content['application/json']!.schema] as const,
  );
  return {
    /** Problems of each named schema (request bodies' included) against the 2020-12 meta-schema. */
    metaSchemaProblems(): Record<string, unknown> {
      const problems: Record<string, unknown> = {};
      for (const [name, schema] of [...Object.entries(components.schemas), ...bodies]) {
        if (!ajv.validateSchema(schema)) problems[name] = ajv.errors;
      }
      return problems;
    },
    /** Where `value` does not fit the schema at `pointer` (e.g. `#/components/schemas/ModelList`). */
    mismatches(pointer: string, value: unknown): unknown[] {
      const validate = ajv.getSchema(`openapi.json${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      return validate(value) ? [] : (validate.errors ?? []);
    },
  };
}
