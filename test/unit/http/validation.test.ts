import { HttpError } from '../../../lambdas/http/errors.js';
import { compile, parseJsonBody, validate, type Schema } from '../../../lambdas/http/validation.js';

/** The HttpError a validation failure throws. */
function failure(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error('expected a validation failure');
}

interface KeyBody {
  name: string;
  rateLimit: number;
  type: string;
  allowedOrigins?: string[];
}

const keyBody = compile<KeyBody>({
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    rateLimit: { type: 'integer', minimum: 1, maximum: 10000, default: 60 },
    type: { type: 'string', enum: ['secret', 'publishable'], default: 'secret' },
    allowedOrigins: { type: 'array', items: { type: 'string', pattern: '^https?://' }, nullable: true },
  },
  required: ['name', 'rateLimit', 'type'],
  additionalProperties: false,
});

// Property names that are not identifiers; typed loosely, as JSONSchemaType cannot express them.
const oddNames = compile({
  type: 'object',
  properties: {
    '': { type: 'string' },
    'a b': { type: 'integer' },
    'a/b~c': { type: 'integer' },
    nested: {
      type: 'object',
      properties: {
        'x-y': { type: 'integer' },
        items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
      },
      additionalProperties: false,
    },
    withOddRequired: {
      type: 'object',
      properties: { 'content-type': { type: 'string' } },
      required: ['content-type'],
    },
  },
  additionalProperties: false,
} as unknown as Schema<Record<string, unknown>>);

// The same shape without an empty-named property, so `{"": ...}` is an unknown field.
const noEmptyName = compile({
  type: 'object',
  properties: { name: { type: 'string' } },
  additionalProperties: false,
} as unknown as Schema<Record<string, unknown>>);

describe('validate', () => {
  test('a valid body passes and gets its defaults', () => {
    expect(validate(keyBody, { name: 'ci' })).toEqual({ name: 'ci', rateLimit: 60, type: 'secret' });
  });

  test('defaults are applied in place and given values are kept', () => {
    const body: Record<string, unknown> = { name: 'ci', rateLimit: 5 };
    validate(keyBody, body);
    expect(body).toEqual({ name: 'ci', rateLimit: 5, type: 'secret' });
  });

  test('a missing required field is named', () => {
    const error = failure(() => validate(keyBody, {}));
    expect(error.status).toBe(400);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.param).toBe('name');
    expect(error.message).toBe('name: is required');
  });

  test('an unknown field is named', () => {
    const error = failure(() => validate(keyBody, { name: 'x', colour: 'red' }));
    expect(error.param).toBe('colour');
    expect(error.message).toBe('colour: is not a known field');
  });

  test('a rule failure names the field and the rule', () => {
    const error = failure(() => validate(keyBody, { name: 'x', rateLimit: 10001 }));
    expect(error.param).toBe('rateLimit');
    expect(error.message).toBe('rateLimit: must be <= 10000');
    expect(failure(() => validate(keyBody, { name: 'x', type: 'other' })).message).toBe(
      'type: must be equal to one of the allowed values',
    );
  });

  test('array items are named by index', () => {
    const error = failure(() => validate(keyBody, { name: 'x', allowedOrigins: ['https://ok.example', 'ftp://no'] }));
    expect(error.param).toBe('allowedOrigins[1]');
    expect(error.message).toBe('allowedOrigins[1]: must match pattern "^https?://"');
    expect(failure(() => validate(keyBody, { name: 'x', allowedOrigins: [7] })).param).toBe('allowedOrigins[0]');
  });

  test('a required field inside an array item is named by its full path', () => {
    const error = failure(() => validate(oddNames, { nested: { items: [{ id: 'a' }, {}] } }));
    expect(error.param).toBe('nested.items[1].id');
    expect(error.message).toBe('nested.items[1].id: is required');
  });

  // (A lone `required: ['']` cannot be tested: ajv 8 never reports it missing, see the report.)
  test('an empty property name is quoted, as an unknown field and as a rule failure', () => {
    const unknown = failure(() => validate(noEmptyName, { '': 1 }));
    expect(unknown.param).toBe('[""]');
    expect(unknown.message).toBe('[""]: is not a known field');
    const wrongType = failure(() => validate(oddNames, { '': 5 }));
    expect(wrongType.param).toBe('[""]');
    expect(wrongType.message).toBe('[""]: must be string');
  });

  test('odd property names are quoted, including JSON-pointer escapes and nested names', () => {
    expect(failure(() => validate(oddNames, { 'a b': 'no' })).param).toBe('["a b"]');
    expect(failure(() => validate(oddNames, { 'a/b~c': 'no' })).param).toBe('["a/b~c"]');
    expect(failure(() => validate(oddNames, { nested: { 'x-y': 'no' } })).param).toBe('nested["x-y"]');
    expect(failure(() => validate(oddNames, { nested: { 'bad key': 1 } })).param).toBe('nested["bad key"]');
    expect(failure(() => validate(oddNames, { '1st': 1 })).param).toBe('["1st"]');
    const missing = failure(() => validate(oddNames, { withOddRequired: {} }));
    expect(missing.param).toBe('withOddRequired["content-type"]');
    expect(missing.message).toBe('withOddRequired["content-type"]: is required');
  });

  test('a wrong type at the root names the root', () => {
    const error = failure(() => validate(keyBody, ['not', 'an', 'object']));
    expect(error.param).toBe('body');
    expect(error.message).toBe('body: must be object');
    expect(failure(() => validate(keyBody, null, 'query')).param).toBe('query');
  });
});

describe('parseJsonBody', () => {
  test('an empty or blank body is an empty object', () => {
    expect(parseJsonBody('')).toEqual({});
    expect(parseJsonBody(' \n\t')).toEqual({});
  });

  test('valid JSON is parsed', () => {
    expect(parseJsonBody('{"a":[1,{"b":null}]}')).toEqual({ a: [1, { b: null }] });
  });

  test.each(['{', '{"a":1,}', "{'a':1}", 'undefined', '{"a":1} trailing'])(
    'malformed JSON %j is a 400 on field body',
    (raw) => {
      const error = failure(() => parseJsonBody(raw));
      expect(error.status).toBe(400);
      expect(error.param).toBe('body');
      expect(error.message).toBe('body: must be valid JSON');
    },
  );

  test('an empty body still meets required-field rules through validate', () => {
    expect(failure(() => validate(keyBody, parseJsonBody(''))).param).toBe('name');
  });
});
