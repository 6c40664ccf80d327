import { loadLinearRegExp } from '../../../../lambdas/chat/guardrails/linear-regexp.js';
import {
  EvaluationBudgetExceeded,
  evaluateSchema,
  MAX_EVALUATION_NESTING,
  MAX_EVALUATION_STEPS,
} from '../../../../lambdas/chat/guardrails/schema-evaluator.js';
import { compileSchema, validateAnswer } from '../../../../lambdas/chat/guardrails/schema-validation.js';
import type { ResponseFormat } from '../../../../lambdas/providers/chat-types.js';

/**
 * The evaluator's bounds, shown by the work it reports (steps), never by the clock: the
 * shapes that were exponential or quadratic must cost a small constant per link or item, and
 * what no bound can make cheap must stop at the budget with a clear failure.
 */

beforeAll(() => loadLinearRegExp());

const check = (schema: Record<string, unknown>, value: unknown, steps?: number) => {
  return evaluateSchema(compileSchema(schema), value, steps === undefined ? {} : { steps });
};
const withSchema = (schema: Record<string, unknown>): ResponseFormat => ({
  type: 'json_schema',
  json_schema: { name: 's', schema },
});
const text = (content: string) => ({ content, hasToolCalls: false });

/** The 2 KB request: `aN = {anyOf: [{$ref: aN+1}, {$ref: aN+1}, {type: null}]}`. */
function fanOutChain(links: number): Record<string, unknown> {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < links; i++)
    $defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }, { type: 'null' }] };
  $defs[`a${links}`] = { type: 'null' };
  return { $defs, $ref: '#/$defs/a0' };
}

describe('fan-out through shared subschemas costs one evaluation per link', () => {
  test('a chain of 24 (which grew the heap to 4 GB) and one of 96 fail quickly, as they should', () => {
    const short = check(fanOutChain(24), 1);
    const long = check(fanOutChain(96), 1);
    expect(short.valid).toBe(false);
    expect(long.valid).toBe(false);
    expect(short.errors).toContain('/ must be null');
    // 2^24 evaluations before; now a few per link, the same per link however long the chain.
    expect(short.steps).toBeLessThan(24 * 30);
    expect(long.steps / 96).toBeLessThan((short.steps / 24) * 1.2);
  });

  test('a value the chain accepts passes', () => {
    expect(check(fanOutChain(40), null)).toMatchObject({ valid: true });
    expect(validateAnswer(text('null'), withSchema(fanOutChain(40)))).toEqual({ outcome: 'pass' });
  });

  test('fan-out through properties at every level of a deep answer stays linear in its depth', () => {
    const schema = {
      $defs: {
        a: {
          anyOf: [
            { type: 'object', properties: { x: { $ref: '#/$defs/a' } }, required: ['y'] },
            { type: 'object', properties: { x: { $ref: '#/$defs/a' } }, required: ['z'] },
            { type: 'object', properties: { x: { $ref: '#/$defs/a' } } },
          ],
        },
      },
      $ref: '#/$defs/a',
    };
    const nest = (depth: number) => {
      let value: unknown = 1;
      for (let i = 0; i < depth; i++) value = { x: value };
      return value;
    };
    const at30 = check(schema, nest(30));
    const at120 = check(schema, nest(120));
    expect(at120.valid).toBe(false);
    expect(at120.steps).toBeLessThan(at30.steps * 4 * 1.2);
  });

  test.each([
    ['oneOf', (next: string) => ({ oneOf: [{ $ref: next }, { $ref: next }, { type: 'string' }] })],
    ['allOf', (next: string) => ({ allOf: [{ $ref: next }, { $ref: next }] })],
    ['not', (next: string) => ({ not: { not: { $ref: next } }, anyOf: [{ $ref: next }, { $ref: next }] })],
    ['if/then/else', (next: string) => ({ if: { $ref: next }, then: { $ref: next }, else: { $ref: next } })],
    ['dependentSchemas', (next: string) => ({ dependentSchemas: { a: { $ref: next }, b: { $ref: next } } })],
  ])('%s chains are linear too', (_name, link) => {
    const chain = (links: number) => {
      const $defs: Record<string, unknown> = {};
      for (let i = 0; i < links; i++) $defs[`a${i}`] = link(`#/$defs/a${i + 1}`);
      $defs[`a${links}`] = { type: 'integer' };
      return { $defs, $ref: '#/$defs/a0' };
    };
    const value = { a: 1, b: 2 };
    const at20 = check(chain(20), value);
    const at80 = check(chain(80), value);
    expect(at80.steps).toBeLessThan(at20.steps * 4 * 1.3);
  });
});

describe('uniqueItems and enum are linear (canonical hashing)', () => {
  const objects = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, tags: ['x', i % 7] }));

  test('distinct objects cost a constant per item; 40,000 (110 s before) stop at the budget', () => {
    const schema = { type: 'array', uniqueItems: true };
    const small = check(schema, objects(2_500));
    const large = check(schema, objects(10_000));
    expect(large.valid).toBe(true);
    expect(large.steps).toBeLessThan(small.steps * 4 * 1.1);
    expect(validateAnswer(text(JSON.stringify(objects(40_000))), withSchema(schema))).toEqual({
      outcome: 'fail',
      errors: ["the answer is too large to check against this schema within the gateway's work budget"],
    });
  });

  test('duplicates are found whatever the key order, with the items named', () => {
    const result = check({ uniqueItems: true }, [{ a: 1, b: [2] }, 3, { b: [2], a: 1 }]);
    expect(result).toMatchObject({
      valid: false,
      errors: ['/ must NOT have duplicate items (items ## 2 and 0 are identical)'],
    });
    expect(check({ uniqueItems: true }, [1, '1', [1], { 1: 1 }, null, 'null']).valid).toBe(true);
    expect(check({ uniqueItems: true }, [1, 1.0]).valid).toBe(false);
  });

  test('an enum of 300 objects checked against 20,000 items costs a constant per item', () => {
    const allowed = Array.from({ length: 300 }, (_, i) => ({ k: i }));
    const schema = { type: 'array', items: { enum: allowed } };
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ k: i % 300 }));
    const small = check(schema, items(5_000));
    const large = check(schema, items(20_000));
    expect(large.valid).toBe(true);
    expect(large.steps).toBeLessThan(small.steps * 4 * 1.1);
    expect(check(schema, [{ k: 300 }]).errors).toEqual(['/0 must be equal to one of the allowed values']);
  });

  test('const compares by value, not by key order', () => {
    expect(check({ const: { a: 1, b: 2 } }, { b: 2, a: 1 }).valid).toBe(true);
    expect(check({ const: { a: 1 } }, { a: 1, b: 2 }).errors).toEqual(['/ must be equal to constant']);
  });
});

describe('each evaluation has its own pattern budget', () => {
  test('evaluations that each fit run one after another, however many, with nothing opened between them', () => {
    const program = compileSchema({ type: 'array', items: { type: 'string', pattern: '^(a|b?){0,30}c$' } });
    // One evaluation costs about two thirds of its allowance (4 × 15,000 characters × the
    // pattern's 215 instructions): were the allowance shared or left to the caller to reopen,
    // the second would run out.
    const value = Array.from({ length: 4 }, () => 'ab'.repeat(7_500));
    for (let i = 0; i < 3; i++)
      expect(evaluateSchema(program, value).errors).toEqual(
        [0, 1, 2, 3].map((n) => `/${n} must match pattern "^(a|b?){0,30}c$"`),
      );
  });
});

describe('what no bound makes cheap stops at the budget', () => {
  test('an answer too large for the budget fails with a clear message, not a stall', () => {
    const schema = { type: 'array', items: { type: 'object', properties: { a: { type: 'integer' } } } };
    const answer = JSON.stringify(Array.from({ length: MAX_EVALUATION_STEPS }, (_, i) => ({ a: i })));
    expect(validateAnswer(text(answer), withSchema(schema))).toEqual({
      outcome: 'fail',
      errors: ["the answer is too large to check against this schema within the gateway's work budget"],
    });
  });

  test('a small budget is a hard stop', () => {
    expect(() => check({ type: 'array', items: { type: 'integer' } }, Array(1000).fill(1), 100)).toThrow(
      EvaluationBudgetExceeded,
    );
  });

  test('evaluation nesting is bounded, so no schema can run the stack out', () => {
    // Each level of the answer passes through a chain of 21 subschemas: 60 levels × 21 > the bound.
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) $defs[`a${i}`] = { allOf: [{ $ref: `#/$defs/a${i + 1}` }] };
    $defs.a20 = { type: 'array', items: { $ref: '#/$defs/a0' } };
    let answer: unknown = [];
    for (let i = 0; i < 60; i++) answer = [answer];
    expect(60 * 21).toBeGreaterThan(MAX_EVALUATION_NESTING);
    expect(validateAnswer(text(JSON.stringify(answer)), withSchema({ $defs, $ref: '#/$defs/a0' }))).toEqual({
      outcome: 'fail',
      errors: [expect.stringMatching(/nests more than 600 subschemas deep/)],
    });
  });
});

describe('JSON Schema 2020-12 and draft-07 forms', () => {
  test('prefixItems and items after them; draft-07 tuple items and additionalItems', () => {
    const modern = { prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false };
    expect(check(modern, ['a', 1]).valid).toBe(true);
    expect(check(modern, ['a', 1, 2]).errors).toEqual(['/2 boolean schema is false']);
    const legacy = { items: [{ type: 'string' }], additionalItems: { type: 'boolean' } };
    expect(check(legacy, ['a', true]).valid).toBe(true);
    expect(check(legacy, ['a', 'b']).errors).toEqual(['/1 must be boolean']);
  });

  test('dependentRequired, dependentSchemas and draft-07 dependencies', () => {
    expect(check({ dependentRequired: { a: ['b'] } }, { a: 1 }).errors).toEqual([
      '/ must have property b when property a is present',
    ]);
    expect(check({ dependencies: { a: ['b'], c: { required: ['d'] } } }, { c: 1 }).errors).toEqual([
      "/ must have required property 'd'",
    ]);
    expect(check({ dependentSchemas: { a: { maxProperties: 1 } } }, { a: 1, b: 2 }).valid).toBe(false);
  });

  test('contains with minContains and maxContains', () => {
    const schema = { contains: { type: 'integer' }, minContains: 2, maxContains: 3 };
    expect(check(schema, [1, 'a', 2]).valid).toBe(true);
    expect(check(schema, [1, 'a']).errors).toEqual(['/ must contain at least 2 valid item(s)']);
    expect(check(schema, [1, 2, 3, 4]).errors).toEqual(['/ must contain at most 3 valid item(s)']);
  });

  test('$anchor, draft-07 "#name" ids and a relative $ref against $id resolve', () => {
    expect(check({ $defs: { n: { $anchor: 'num', type: 'number' } }, $ref: '#num' }, 'x').valid).toBe(false);
    expect(check({ definitions: { n: { $id: '#num', type: 'number' } }, $ref: '#num' }, 2).valid).toBe(true);
    const schema = {
      $id: 'https://example.com/root.json',
      $defs: { leaf: { $id: 'leaf.json', type: 'string' } },
      items: { $ref: 'leaf.json' },
    };
    expect(check(schema, ['a', 1]).errors).toEqual(['/1 must be string']);
  });

  test('propertyNames, patternProperties and additionalProperties', () => {
    const schema = {
      propertyNames: { maxLength: 3 },
      patternProperties: { '^n_': { type: 'number' } },
      additionalProperties: { type: 'string' },
    };
    expect(check(schema, { n_a: 1, b: 'x' }).valid).toBe(true);
    expect(check(schema, { long: 'x' }).errors).toEqual(["/ property name 'long' is invalid"]);
    expect(check(schema, { n_a: 'x', b: 1 }).errors).toEqual(['/n_a must be number', '/b must be string']);
  });

  test('strings count code points, as JSON Schema does', () => {
    expect(check({ maxLength: 2 }, '😀😀').valid).toBe(true);
    expect(check({ minLength: 3 }, '😀😀').valid).toBe(false);
  });

  test.each([
    ['unevaluatedProperties', { unevaluatedProperties: false }],
    ['unevaluatedItems', { unevaluatedItems: false }],
    ['$dynamicRef', { $dynamicRef: '#x' }],
  ])('%s is refused, not silently ignored', (keyword, schema) => {
    expect(() => compileSchema(schema)).toThrow(new RegExp(`${keyword.replace('$', '\\$')} is not supported`));
  });

  test.each([
    [{ type: 'nope' }, /type must be one of/],
    [{ minimum: 'x' }, /minimum must be a number/],
    [{ maxLength: -1 }, /maxLength must be a non-negative integer/],
    [{ required: [1] }, /required must be an array of strings/],
    [{ properties: { a: 3 } }, /properties\/a must be a schema/],
    [{ $ref: '#/$defs/missing' }, /can't resolve reference/],
    [{ anyOf: [] }, /anyOf must be a non-empty array/],
  ])('an invalid schema is refused saying where: %j', (schema, message) => {
    expect(() => compileSchema(schema)).toThrow(message);
  });
});
