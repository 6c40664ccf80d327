import {
  canonicalJson,
  compileSchema,
  responseFormatSchemaError,
  SCHEMA_CACHE_SIZE,
  validateAnswer,
} from '../../../lambdas/gateway/guardrails/schema-validation.js';
import type { ResponseFormat } from '../../../lambdas/providers/chat/types.js';

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

test('an unusable schema is reported for the request', () => {
  expect(responseFormatSchemaError(person)).toBeUndefined();
  expect(
    responseFormatSchemaError({ type: 'json_schema', json_schema: { name: 'bad', schema: { type: 'nope' } } }),
  ).toMatch(/type/);
  expect(
    responseFormatSchemaError({
      type: 'json_schema',
      json_schema: { name: 'ref', schema: { $ref: 'https://elsewhere/x.json' } },
    }),
  ).toMatch(/resolve|reference/);
  expect(responseFormatSchemaError({ type: 'json_object' })).toBeUndefined();
});

test('canonical JSON sorts keys at every depth', () => {
  expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
});
