import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import { loadLinearRegExp } from '../../../../lambdas/chat/guardrails/linear-regexp.js';
import { canonicalJson } from '../../../../lambdas/schema/canonical-json.js';
import { evaluateSchema } from '../../../../lambdas/chat/guardrails/schema-evaluator.js';
import { compileSchema } from '../../../../lambdas/chat/guardrails/schema-validation.js';

/**
 * An independent oracle for the gateway's own schema evaluator: Ajv, the most used JSON Schema
 * validator, must agree on every generated schema and value whether the value is valid. Ajv is
 * not bounded (that is why it no longer checks callers' schemas), so the generated schemas are
 * small and their references acyclic. The 2020-12 keywords are checked against Ajv's 2020
 * class, draft-07's `items` array, `additionalItems` and `dependencies` against its draft-07
 * class.
 */

beforeAll(() => loadLinearRegExp());

const KEYS = ['a', 'b', 'c', 'n_1'];
const key = fc.constantFrom(...KEYS);
const small = fc.oneof(
  fc.constantFrom(null, true, false, 0, 1, 2, -1, 1.5, '', 'a', 'b', 'ab', '😀', 'n_1'),
  fc.integer({ min: -5, max: 5 }),
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    small,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));

const typeName = fc.constantFrom('null', 'boolean', 'object', 'array', 'number', 'string', 'integer');
const count = fc.integer({ min: 0, max: 3 });
const pattern = fc.constantFrom('^a', 'b$', '[0-9]', '^n_', '^.{2}$', 'a|b');

type Draft = '2020' | '07';

/** Schemas over the keywords both validators implement; `refs` are the $defs a $ref may name. */
function schemaOf(draft: Draft, refs: readonly string[]): fc.Arbitrary<unknown> {
  const { schema } = fc.letrec<{ schema: unknown }>((tie) => {
    const sub = tie('schema');
    // Ajv 8 skips `contains` on an empty array beside tuple items (`{"prefixItems":[{}],
    // "contains":false}` accepts `[]`, which the spec refuses), and its draft-07 class more
    // widely when a tuple holds `false`: those combinations are not generated.
    const tupleItem = sub.filter((s) => s !== false);
    const keyword = fc.oneof(
      fc.record({ type: fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 })) }),
      // Ajv refuses an enum listing a value twice, which the gateway accepts: keep them distinct.
      fc.record({ enum: fc.uniqueArray(value, { minLength: 1, maxLength: 4, selector: canonicalJson }) }),
      fc.record({ const: value }),
      fc.record({ minimum: fc.integer({ min: -3, max: 3 }) }),
      fc.record({ maximum: fc.integer({ min: -3, max: 3 }) }),
      fc.record({ exclusiveMinimum: fc.integer({ min: -3, max: 3 }) }),
      fc.record({ exclusiveMaximum: fc.integer({ min: -3, max: 3 }) }),
      fc.record({ multipleOf: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ minLength: count }),
      fc.record({ maxLength: count }),
      fc.record({ pattern }),
      fc.record({ minItems: count }),
      fc.record({ maxItems: count }),
      fc.record({ uniqueItems: fc.boolean() }),
      fc.record({ contains: sub }),
      fc.record({ required: fc.uniqueArray(key, { maxLength: 2 }) }),
      fc.record({ minProperties: count }),
      fc.record({ maxProperties: count }),
      fc.record({ properties: fc.dictionary(key, sub, { maxKeys: 2 }) }),
      fc.record({ patternProperties: fc.dictionary(pattern, sub, { maxKeys: 2 }) }),
      fc.record({ additionalProperties: sub }),
      fc.record({ propertyNames: fc.record({ maxLength: count }) }),
      fc.record({ allOf: fc.array(sub, { minLength: 1, maxLength: 2 }) }),
      fc.record({ anyOf: fc.array(sub, { minLength: 1, maxLength: 2 }) }),
      fc.record({ oneOf: fc.array(sub, { minLength: 1, maxLength: 2 }) }),
      fc.record({ not: sub }),
      fc.record({ if: sub, then: sub }, { requiredKeys: ['if'] }),
      fc.record({ if: sub, else: sub }, { requiredKeys: ['if'] }),
      ...(refs.length > 0 ? [fc.record({ $ref: fc.constantFrom(...refs).map((name) => `#/$defs/${name}`) })] : []),
      ...(draft === '2020'
        ? [
            fc.record({ items: sub }),
            fc.record({ prefixItems: fc.array(sub, { minLength: 1, maxLength: 2 }), items: sub }),
            fc.record({ contains: sub, minContains: count, maxContains: count }),
            fc.record({ dependentRequired: fc.dictionary(key, fc.uniqueArray(key, { maxLength: 2 }), { maxKeys: 2 }) }),
            fc.record({ dependentSchemas: fc.dictionary(key, sub, { maxKeys: 2 }) }),
          ]
        : [
            fc.record({ items: fc.oneof(sub, fc.array(tupleItem, { minLength: 1, maxLength: 2 })) }),
            fc.record({ items: fc.array(tupleItem, { minLength: 1, maxLength: 2 }), additionalItems: sub }),
            fc.record({
              dependencies: fc.dictionary(key, fc.oneof(fc.uniqueArray(key, { maxLength: 2 }), sub), { maxKeys: 2 }),
            }),
          ]),
    );
    return {
      schema: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.boolean(),
        fc
          .array(keyword, { maxLength: 3 })
          .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>)
          .filter((s) => !('contains' in s && ('prefixItems' in s || Array.isArray(s.items)))),
      ),
    };
  });
  return schema;
}

/** A root with up to three $defs, each referring only to later ones: no reference cycle. */
const document = (draft: Draft) =>
  fc.tuple(schemaOf(draft, ['d1', 'd2']), schemaOf(draft, ['d2']), schemaOf(draft, [])).chain(([d0, d1, d2]) =>
    schemaOf(draft, ['d0', 'd1', 'd2']).map((root) => {
      const $defs = { d0, d1, d2 };
      return typeof root === 'boolean' ? { $defs, allOf: [root] } : { ...(root as Record<string, unknown>), $defs };
    }),
  );

const oracles = {
  '2020': new Ajv2020({ strict: false, validateFormats: false, logger: false }),
  '07': new Ajv({ strict: false, validateFormats: false, logger: false }),
};

test.each(['2020', '07'] as const)('Ajv (%s) and the bounded evaluator agree on validity', (draft) => {
  const ajv = oracles[draft];
  let checked = 0;
  let invalid = 0;
  fc.assert(
    fc.property(document(draft), value, (generated, generatedInstance) => {
      // As the gateway gets them: parsed from JSON (fast-check's dictionaries have no prototype).
      const schema = JSON.parse(JSON.stringify(generated)) as Record<string, unknown>;
      const instance: unknown = JSON.parse(JSON.stringify(generatedInstance));
      const expected = ajv.validate(schema, instance);
      const actual = evaluateSchema(compileSchema(schema), instance);
      checked++;
      if (!expected) invalid++;
      expect(actual.valid).toBe(expected);
      expect(actual.valid).toBe(actual.errors.length === 0);
    }),
    { numRuns: 1500, seed: draft === '2020' ? 2020 : 7 },
  );
  // Both outcomes must be well represented, or the agreement says little.
  expect(invalid).toBeGreaterThan(checked / 5);
  expect(checked - invalid).toBeGreaterThan(checked / 5);
});
