import { toJsonSchema2020 } from '../../../lambdas/openapi/json-schema-2020.js';

describe('ajv schemas as JSON Schema 2020-12', () => {
  test('nullable becomes null among the types and the enum values', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 5, nullable: true },
        kind: { type: 'string', enum: ['a', 'b'], nullable: true },
        either: { type: ['integer', 'string'], nullable: true },
      },
    };
    expect(toJsonSchema2020(schema)).toEqual({
      type: 'object',
      properties: {
        name: { type: ['string', 'null'], maxLength: 5 },
        kind: { type: ['string', 'null'], enum: ['a', 'b', null] },
        either: { type: ['integer', 'string', 'null'] },
      },
    });
  });

  test('names under properties are data: a property called nullable is kept', () => {
    const schema = { type: 'object', properties: { nullable: { type: 'boolean' } }, required: ['nullable'] };
    expect(toJsonSchema2020(schema)).toEqual(schema);
  });

  test('nested schemas in every schema keyword are translated; values (enum, const, default) are not', () => {
    const schema = {
      anyOf: [{ type: 'string', nullable: true }],
      items: { type: 'object', additionalProperties: { type: 'number', nullable: true } },
      if: { properties: { a: { const: { nullable: true } } } },
      then: { required: ['a'] },
      default: { nullable: true },
    };
    expect(toJsonSchema2020(schema)).toEqual({
      anyOf: [{ type: ['string', 'null'] }],
      items: { type: 'object', additionalProperties: { type: ['number', 'null'] } },
      if: { properties: { a: { const: { nullable: true } } } },
      then: { required: ['a'] },
      default: { nullable: true },
    });
  });

  test('tuples become prefixItems and definitions $defs, with their references', () => {
    const schema = {
      type: 'array',
      items: [{ $ref: '#/definitions/id' }, { type: 'integer' }],
      additionalItems: false,
      definitions: { id: { type: 'string' } },
    };
    expect(toJsonSchema2020(schema)).toEqual({
      type: 'array',
      prefixItems: [{ $ref: '#/$defs/id' }, { type: 'integer' }],
      items: false,
      $defs: { id: { type: 'string' } },
    });
  });

  test('an object that names no members says it takes any (generators read silence as none)', () => {
    const schema = {
      type: 'object',
      properties: {
        parameters: { type: 'object' },
        variables: { type: 'object', nullable: true },
        listed: { type: 'object', properties: { a: { type: 'string' } } },
        closed: { type: 'object', additionalProperties: false },
        mapped: { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      },
    };
    expect(toJsonSchema2020(schema)).toEqual({
      type: 'object',
      properties: {
        parameters: { type: 'object', additionalProperties: true },
        variables: { type: ['object', 'null'], additionalProperties: true },
        listed: { type: 'object', properties: { a: { type: 'string' } } },
        closed: { type: 'object', additionalProperties: false },
        mapped: { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      },
    });
  });

  test('ajv’s discriminator over inline branches goes (OpenAPI’s selects named schemas only); the branches stay', () => {
    const branches = [
      { required: ['kind'], properties: { kind: { const: 'a' }, a: { type: 'string' } } },
      { required: ['kind'], properties: { kind: { const: 'b' }, b: { type: 'integer' } } },
    ];
    const schema = { type: 'object', discriminator: { propertyName: 'kind' }, oneOf: branches };
    expect(toJsonSchema2020(schema)).toEqual({ type: 'object', oneOf: branches });
    const named = { discriminator: { propertyName: 'kind' }, oneOf: [{ $ref: '#/components/schemas/A' }] };
    expect(toJsonSchema2020(named)).toEqual(named);
  });

  test('the input is left as it was: handlers compile the same object', () => {
    const schema = { type: 'object', properties: { name: { type: 'string', nullable: true } } };
    const before = structuredClone(schema);
    toJsonSchema2020(schema);
    expect(schema).toEqual(before);
  });
});
