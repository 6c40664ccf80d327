import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';
import { keepParses, type ExpressionParser } from '../../../local/dynamodb-parsed-expressions.mjs';

/**
 * The embedded DynamoDB keeps the parse of an expression without values (by its text and names,
 * local/dynamodb-parsed-expressions.mjs): each call must still get a tree of its own and have
 * its names marked used, a malformed text must be refused every time, and an expression with
 * values must be parsed afresh, as dynalite does; through the database, conditions decide as
 * before.
 */
const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));
const validations = dynaliteRequire('./validations') as {
  validateExpressions(data: Record<string, unknown>): string | undefined;
};

/** dynalite's condition parser, counting the parses it really makes, with the cache over it. */
const CAPACITY = 2;
const conditionParser = dynaliteRequire('./db/conditionParser') as ExpressionParser;
const realParse = conditionParser.parse;
let parses = 0;
conditionParser.parse = function (...args) {
  parses++;
  return realParse.apply(this, args);
};
keepParses(conditionParser, CAPACITY);

/** What dynalite's validation makes of a call's expressions: its error, or the input it annotated. */
function validated(input: Record<string, unknown>) {
  const data = { ...input };
  const error = validations.validateExpressions(data);
  return { error, data };
}

beforeEach(() => {
  parses = 0;
});

describe('keepParses', () => {
  it('parses a condition without names or values once, and gives every call its own equal tree', () => {
    const first = validated({ ConditionExpression: 'attribute_not_exists(pk)' }).data['_condition'] as {
      expression: Record<string, unknown>;
    };
    const second = validated({ ConditionExpression: 'attribute_not_exists(pk)' }).data['_condition'];
    expect(parses).toBe(1);
    expect(first.expression).toEqual({
      type: 'function',
      name: 'attribute_not_exists',
      args: [['pk']],
      attrType: null,
    });
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    first.expression['name'] = 'changed by a caller';
    expect(validated({ ConditionExpression: 'attribute_not_exists(pk)' }).data['_condition']).toEqual(second);
  });

  it('refuses a malformed condition on every call, parsing it each time', () => {
    for (let i = 0; i < 2; i++)
      expect(validated({ ConditionExpression: 'attribute_not_exists(' }).error).toMatch(
        /^Invalid ConditionExpression: Syntax error/,
      );
    expect(parses).toBe(2);
  });

  it('parses a condition with names or values afresh, each with its own values', () => {
    for (let i = 0; i < 2; i++) {
      const { error, data } = validated({
        ConditionExpression: '#p = :v',
        ExpressionAttributeNames: { '#p': 'pk' },
        ExpressionAttributeValues: { ':v': { S: `v${i}` } },
      });
      expect(error).toBeUndefined();
      expect(JSON.stringify(data['_condition'])).toContain(`v${i}`);
    }
    // Unused names are still refused: the parse marks what it used.
    expect(
      validated({ ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeNames: { '#unused': 'x' } }).error,
    ).toMatch(/unused in expressions/);
    expect(parses).toBe(3);
  });

  it('keeps a condition with names alone by its text and names, marking them used on every call', () => {
    const named = (names: Record<string, string>) =>
      validated({ ConditionExpression: 'attribute_not_exists(#k)', ExpressionAttributeNames: names });
    const first = named({ '#k': 'pk' });
    const second = named({ '#k': 'pk' });
    expect([first.error, second.error]).toEqual([undefined, undefined]);
    expect(second.data['_condition']).toEqual(first.data['_condition']);
    expect(JSON.stringify(first.data['_condition'])).toContain('"pk"');
    expect(parses).toBe(1);
    // A name the kept parse did not use is still refused; the kept names are marked used again.
    expect(named({ '#k': 'pk', '#other': 'x' }).error).toMatch(/unused in expressions: keys: \{#other\}/);
    expect(named({ '#k': 'pk' }).error).toBeUndefined();
    expect(parses).toBe(2);
    // Other names, another tree.
    expect(JSON.stringify(named({ '#k': 'sk' }).data['_condition'])).toContain('"sk"');
    expect(parses).toBe(3);
  });

  it('keeps at most its capacity of texts and still answers every one', () => {
    const texts = ['attribute_exists(a)', 'attribute_exists(b)', 'attribute_exists(c)'];
    const trees = texts.map((text) => validated({ ConditionExpression: text }).data['_condition']);
    expect(texts.map((text) => validated({ ConditionExpression: text }).data['_condition'])).toEqual(trees);
    expect(parses).toBeGreaterThan(texts.length);
  });
});

describe('conditions through the embedded DynamoDB', () => {
  const TABLE = 'gateway-cache';
  let dataDir: string;
  let db: LocalDynamoDb;
  let ddb: DynamoDBClient;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parsed-expressions-'));
    db = await startLocalDynamoDb({ dataDir, tablePrefix: 'gateway' });
    ddb = new DynamoDBClient({
      endpoint: db.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  });

  afterAll(async () => {
    ddb?.destroy();
    await db?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const put = (pk: string, value: string, condition?: string) =>
    ddb.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: { pk: { S: pk }, sk: { S: 'x' }, value: { S: value } },
        ...(condition ? { ConditionExpression: condition } : {}),
      }),
    );

  it('decides the same kept condition on each item by that item', async () => {
    await put('A', 'first', 'attribute_not_exists(pk)');
    await expect(put('A', 'second', 'attribute_not_exists(pk)')).rejects.toBeInstanceOf(
      ConditionalCheckFailedException,
    );
    await put('B', 'first', 'attribute_not_exists(pk)');
    await put('B', 'second', 'attribute_exists(pk)');
    await expect(put('C', 'first', 'attribute_exists(pk)')).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    const value = async (pk: string) =>
      (await ddb.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: pk }, sk: { S: 'x' } } }))).Item?.['value']
        ?.S;
    expect([await value('A'), await value('B'), await value('C')]).toEqual(['first', 'second', undefined]);
  });

  it('refuses a malformed condition each time it is sent', async () => {
    for (let i = 0; i < 2; i++)
      await expect(put('D', 'any', 'attribute_not_exists(')).rejects.toMatchObject({
        name: 'ValidationException',
        message: expect.stringContaining('Invalid ConditionExpression'),
      });
  });
});
