import {
  loadLinearRegExp,
  MAX_PATTERN_LENGTH,
  MAX_PATTERN_PROGRAM,
  MAX_SCHEMA_PROGRAM,
} from '../../../../lambdas/chat/guardrails/linear-regexp.js';
import {
  compileSchema,
  MAX_ANSWER_DEPTH,
  MAX_VALIDATED_SCHEMA_DEPTH,
  MAX_VALIDATED_SCHEMA_NODES,
  responseFormatSchemaError,
  SCHEMA_CACHE_SIZE,
  validateAnswer,
} from '../../../../lambdas/chat/guardrails/schema-validation.js';
import type { ResponseFormat } from '../../../../lambdas/providers/chat-types.js';

const person: ResponseFormat = {
  type: 'json_schema',
  json_schema: {
    name: 'person',
    schema: {
      type: 'object',
      required: ['name', 'age'],
      additionalProperties: false,
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
    },
  },
};
const text = (content: string | null) => ({ content, hasToolCalls: false });

beforeAll(() => loadLinearRegExp());

test('json_schema: a matching answer passes', () => {
  expect(validateAnswer(text('{"name":"Ada","age":36}'), person)).toEqual({ outcome: 'pass' });
});

test('json_schema: a mismatching answer fails with readable errors', () => {
  const result = validateAnswer(text('{"name":1,"age":-1,"extra":true}'), person);
  expect(result.outcome).toBe('fail');
  expect(result.errors).toEqual(
    expect.arrayContaining(['/name must be string', '/age must be >= 0', '/ must NOT have additional properties']),
  );
});

test('json_schema: not JSON, or no content, fails', () => {
  expect(validateAnswer(text('Sure! {"name":"Ada"}'), person)).toEqual({
    outcome: 'fail',
    errors: ['the answer is not valid JSON'],
  });
  expect(validateAnswer(text(null), person)).toEqual({ outcome: 'fail', errors: ['the answer has no content'] });
});

test('json_object: must be a JSON object', () => {
  const format: ResponseFormat = { type: 'json_object' };
  expect(validateAnswer(text('{"a":1}'), format).outcome).toBe('pass');
  expect(validateAnswer(text('[1,2]'), format)).toEqual({
    outcome: 'fail',
    errors: ['the answer is not a JSON object'],
  });
  expect(validateAnswer(text('"a"'), format).outcome).toBe('fail');
});

test('tool-call answers, text formats and no format are skipped', () => {
  expect(validateAnswer({ content: null, hasToolCalls: true }, person)).toEqual({ outcome: 'skip' });
  expect(validateAnswer(text('anything'), { type: 'text' })).toEqual({ outcome: 'skip' });
  expect(validateAnswer(text('anything'), undefined)).toEqual({ outcome: 'skip' });
});

test('schemas with $defs, $id and a $schema dialect work, repeatedly', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://example.com/list',
    type: 'array',
    items: { $ref: '#/$defs/item' },
    $defs: { item: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
  };
  for (let i = 0; i < 3; i++) {
    const format: ResponseFormat = {
      type: 'json_schema',
      json_schema: { name: 'list', schema: structuredClone(schema) },
    };
    expect(validateAnswer(text('[{"id":"a"}]'), format).outcome).toBe('pass');
    expect(validateAnswer(text('[{"id":1}]'), format)).toEqual({ outcome: 'fail', errors: ['/0/id must be string'] });
  }
});

test('compiled once per schema, whatever the key order; the cache is bounded', () => {
  const a = compileSchema({ type: 'object', properties: { x: { type: 'string' } } });
  const b = compileSchema({ properties: { x: { type: 'string' } }, type: 'object' });
  expect(b).toBe(a);
  for (let i = 0; i < SCHEMA_CACHE_SIZE + 5; i++) compileSchema({ type: 'object', title: `s${i}` });
  expect(compileSchema({ type: 'object', properties: { x: { type: 'string' } } })).not.toBe(a);
});

test('an unusable schema is reported for the request', async () => {
  expect(await responseFormatSchemaError(person)).toBeUndefined();
  expect(
    await responseFormatSchemaError({ type: 'json_schema', json_schema: { name: 'bad', schema: { type: 'nope' } } }),
  ).toMatch(/type/);
  expect(
    await responseFormatSchemaError({
      type: 'json_schema',
      json_schema: { name: 'ref', schema: { $ref: 'https://elsewhere/x.json' } },
    }),
  ).toMatch(/resolve|reference/);
  expect(await responseFormatSchemaError({ type: 'json_object' })).toBeUndefined();
});

describe('bounded evaluation of callers schemas', () => {
  const withSchema = (schema: Record<string, unknown>): ResponseFormat => ({
    type: 'json_schema',
    json_schema: { name: 's', schema },
  });

  // With V8's backtracking engine this one check takes about 2^n steps (n = 29: ~19 s).
  test('a catastrophic pattern is matched in linear time, with JSON Schema semantics', () => {
    const format = withSchema({ type: 'string', pattern: '^(a+)+$' });
    expect(validateAnswer(text(JSON.stringify(`${'a'.repeat(5000)}!`)), format)).toEqual({
      outcome: 'fail',
      errors: ['/ must match pattern "^(a+)+$"'],
    });
    expect(validateAnswer(text(JSON.stringify('aaaa')), format).outcome).toBe('pass');
  });

  test('patternProperties, unanchored search and JavaScript escapes run on RE2', () => {
    const format = withSchema({
      type: 'object',
      patternProperties: { '^x_': { type: 'integer' } },
      properties: { word: { type: 'string', pattern: '\\u00e9t' } },
    });
    expect(validateAnswer(text('{"x_a":1,"word":"un été"}'), format).outcome).toBe('pass');
    expect(validateAnswer(text('{"x_a":"1"}'), format)).toEqual({ outcome: 'fail', errors: ['/x_a must be integer'] });
    expect(validateAnswer(text('{"word":"ete"}'), format).outcome).toBe('fail');
  });

  test.each([
    ['a lookahead', '(?=a)b', /not supported.*no lookaround or backreferences/],
    ['a backreference', '(a)\\1', /not supported/],
    ['a syntax error', '[', /not supported/],
    ['a long pattern', 'a'.repeat(MAX_PATTERN_LENGTH + 1), new RegExp(`at most ${MAX_PATTERN_LENGTH} characters`)],
    ['a large program', 'a{1000}b{1000}', new RegExp(`at most ${MAX_PATTERN_PROGRAM} RE2 instructions`)],
  ])('%s cannot be used as pattern or in patternProperties', async (_case, pattern, reason) => {
    expect(await responseFormatSchemaError(withSchema({ type: 'string', pattern }))).toMatch(reason);
    const keyed = withSchema({ patternProperties: { [pattern]: { type: 'string' } } });
    expect(await responseFormatSchemaError(keyed)).toMatch(reason);
  });

  test('all of one schema’s patterns share a compile budget', async () => {
    const patterns = Array.from({ length: 12 }, (_, i) => ({ pattern: `a{${900 + i}}` }));
    expect(await responseFormatSchemaError(withSchema({ allOf: patterns }))).toMatch(
      new RegExp(`at most ${MAX_SCHEMA_PROGRAM} RE2 instructions`),
    );
  });

  test('an answer too long for its patterns fails instead of running on', () => {
    const format = withSchema({ type: 'string', pattern: '^(a|b?){0,30}c$' });
    expect(validateAnswer(text(JSON.stringify('ab'.repeat(300_000))), format)).toEqual({
      outcome: 'fail',
      errors: ['the answer is too long to check against these patterns'],
    });
  });

  test('schemas beyond the compile limits are refused before compiling', async () => {
    const properties = Object.fromEntries(Array.from({ length: MAX_VALIDATED_SCHEMA_NODES }, (_, i) => [`p${i}`, 1]));
    expect(await responseFormatSchemaError(withSchema({ properties }))).toMatch(
      new RegExp(`at most ${MAX_VALIDATED_SCHEMA_NODES} JSON values`),
    );
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < MAX_VALIDATED_SCHEMA_DEPTH; i++) deep = { not: deep };
    expect(await responseFormatSchemaError(withSchema(deep))).toMatch(/nested at most 64 levels/);
  });

  test.each([
    [{ $ref: '#' }],
    [{ anyOf: [{ type: 'string' }, { $ref: '#' }] }],
    [{ $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { not: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' }],
  ])('a schema that applies itself to the same value without end is refused: %j', async (schema) => {
    expect(await responseFormatSchemaError(withSchema(schema))).toMatch(/applies itself to the same value without end/);
  });

  test('an answer nested deeper than the limit fails, even against a recursive schema', () => {
    const format = withSchema({
      $defs: { tree: { anyOf: [{ type: 'number' }, { type: 'array', items: { $ref: '#/$defs/tree' } }] } },
      $ref: '#/$defs/tree',
    });
    expect(validateAnswer(text('[[1],[[2]]]'), format).outcome).toBe('pass');
    const deep = `${'['.repeat(10_000)}1${']'.repeat(10_000)}`;
    expect(validateAnswer(text(deep), format)).toEqual({
      outcome: 'fail',
      errors: [`the answer nests deeper than ${MAX_ANSWER_DEPTH} levels`],
    });
  });
});
