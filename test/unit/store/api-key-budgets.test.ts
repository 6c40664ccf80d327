import { dynamo, tableName, toItem } from '../../../lambdas/store/dynamo.js';
import {
  getApiKey,
  listApiKeys,
  putApiKey,
  revokeApiKey,
  updateApiKey,
  type ApiKeyRecord,
} from '../../../lambdas/store/api-keys.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';

/** A key's budget through the repository, against dynalite: set at creation, changed, removed. */

const db = useLocalDynamoDb('keybudget');

beforeAll(() => {
  process.env['IDENTITY_TABLE'] = db().tableNames.identity;
});

let n = 0;
function newKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  n += 1;
  return {
    keyId: `budgetkey${n}`,
    accountId: 'acct-budget',
    type: 'secret',
    hash: `hash-${n}`,
    name: `key ${n}`,
    rateLimit: 60,
    enabled: true,
    revoked: false,
    allowedOrigins: [],
    createdAt: new Date(Date.UTC(2026, 10, 27, 12, 0, n)).toISOString(),
    ...overrides,
  };
}

test('a key created with a budget reads it back; one created without reads none', async () => {
  const budgeted = newKey({ budget: { limitMicroUsd: 2_500_000, period: 'month' } });
  const plain = newKey();
  await putApiKey(budgeted);
  await putApiKey(plain);
  expect(await getApiKey(budgeted.keyId)).toEqual(budgeted);
  expect(await getApiKey(plain.keyId)).toEqual(plain);
  expect((await getApiKey(plain.keyId))!).not.toHaveProperty('budget');
  const listed = await listApiKeys('acct-budget');
  expect(listed.find((key) => key.keyId === budgeted.keyId)?.budget).toEqual({
    limitMicroUsd: 2_500_000,
    period: 'month',
  });
});

test('an update sets a budget, changes it, and null removes it; each answers the key as changed', async () => {
  const key = newKey();
  await putApiKey(key);

  const set = await updateApiKey(key.accountId, key.keyId, { budget: { limitMicroUsd: 1_000_000, period: 'day' } });
  expect(set).toEqual({ ...key, budget: { limitMicroUsd: 1_000_000, period: 'day' } });

  const changed = await updateApiKey(key.accountId, key.keyId, {
    name: 'renamed',
    budget: { limitMicroUsd: 7, period: 'total' },
  });
  expect(changed).toEqual({ ...key, name: 'renamed', budget: { limitMicroUsd: 7, period: 'total' } });
  expect(await getApiKey(key.keyId)).toEqual(changed);

  // A removal beside a SET: both clauses in one update.
  const removed = await updateApiKey(key.accountId, key.keyId, { budget: null, rateLimit: 5 });
  expect(removed).toEqual({ ...key, name: 'renamed', rateLimit: 5 });
  expect(removed).not.toHaveProperty('budget');
  const { Item } = await dynamo().getItem({
    TableName: tableName('identity'),
    Key: toItem({ pk: `KEY#${key.keyId}`, sk: 'KEY' }),
    ConsistentRead: true,
  });
  expect(Item).not.toHaveProperty('budget');

  // Removing what is not there is no error, and leaves the rest as it was.
  expect(await updateApiKey(key.accountId, key.keyId, { budget: null })).toEqual(removed);
});

test("an update of another account's key, or of a revoked one, changes nothing and answers undefined", async () => {
  const key = newKey({ budget: { limitMicroUsd: 3, period: 'day' } });
  await putApiKey(key);
  expect(await updateApiKey('someone-else', key.keyId, { budget: null })).toBeUndefined();
  expect(await updateApiKey(key.accountId, 'nosuchkey', { budget: null })).toBeUndefined();
  expect(await getApiKey(key.keyId)).toEqual(key);
  expect(await revokeApiKey(key.keyId, key.accountId)).toBe(true);
  expect(await updateApiKey(key.accountId, key.keyId, { budget: null })).toBeUndefined();
  expect((await getApiKey(key.keyId))?.budget).toEqual({ limitMicroUsd: 3, period: 'day' });
});

test.each([
  ['a string', { S: 'lots' }],
  ['a limit of 0', { M: { limitMicroUsd: { N: '0' }, period: { S: 'day' } } }],
  ['a fractional limit', { M: { limitMicroUsd: { N: '1.5' }, period: { S: 'day' } } }],
  ['an unknown period', { M: { limitMicroUsd: { N: '10' }, period: { S: 'week' } } }],
  ['no period', { M: { limitMicroUsd: { N: '10' } } }],
])('a stored budget that is %s fails the read rather than reading as no limit', async (_what, budget) => {
  const key = newKey();
  await putApiKey(key);
  await dynamo().updateItem({
    TableName: tableName('identity'),
    Key: toItem({ pk: `KEY#${key.keyId}`, sk: 'KEY' }),
    UpdateExpression: 'SET budget = :budget',
    ExpressionAttributeValues: { ':budget': budget },
  });
  await expect(getApiKey(key.keyId)).rejects.toThrow(`API key ${key.keyId}: its stored budget is malformed`);
});
