import type { GatewayRequest } from '../../lambdas/http/request.js';
import { authenticate } from '../../lambdas/identity/authenticate.js';
import { budgetCounterRef, keyBudgetScope, reserveBudget, settleBudget } from '../../lambdas/store/budget-counters.js';
import { useGateway } from './support/gateway-fixture.js';
import { bearer, call } from './support/http.js';

/**
 * A key's budget over HTTP: set at creation (dashboard and admin API), read back in the listing
 * with the current period's spend and end, changed and removed by PATCH, and bad budgets
 * refused naming the field. Spend is written to the runtime's own counters as the chat core's
 * settlements write it.
 */
const local = useGateway({ runtimeTables: true, account: 'budgets' });

const keysUrl = () => local.gateway.url('/api/v1/keys');
const create = (body: unknown) => call(keysUrl(), { headers: local.account.session, body });
const patch = (id: string, body: unknown) =>
  call(local.gateway.url(`/api/v1/keys/${id}`), { method: 'PATCH', headers: local.account.session, body });
const adminCreate = (body: Record<string, unknown>) =>
  call(local.gateway.url('/api/admin/v1/keys'), {
    headers: bearer(local.gateway.info.adminToken),
    body: { accountId: local.account.accountId, type: 'secret', ...body },
  });

async function listed(keyId: string) {
  const answer = await call(keysUrl(), { headers: { Cookie: local.account.cookie } });
  expect(answer.status).toBe(200);
  return answer.body.data.keys.find((key: { id: string }) => key.id === keyId);
}

/** The next UTC midnight after `at`, from its calendar date as text. */
const nextDay = (at: Date) => new Date(Date.parse(`${at.toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000);

/** The first instant of the UTC month after `at`'s, from its year and month as text. */
function nextMonth(at: Date): Date {
  const [year, month] = at.toISOString().slice(0, 7).split('-').map(Number) as [number, number];
  const following = month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, '0')}`;
  return new Date(`${following}-01T00:00:00Z`);
}

/**
 * What `resetsAt` may be for a request made between `before` and now: either end's period, so
 * that a test running across midnight still holds.
 */
const periodEnds = (before: Date, next: (at: Date) => Date) => [
  ...new Set([next(before).toISOString(), next(new Date()).toISOString()]),
];

test('a key created with a daily budget lists it with no spend and the next UTC midnight as its end', async () => {
  const before = new Date();
  const created = await create({ name: 'daily', budget: { limitUsd: 12.5, period: 'day' } });
  expect(created.status).toBe(201);
  const { keyId, budget } = created.body.data;
  expect(budget).toEqual({
    limitUsd: 12.5,
    period: 'day',
    spentUsd: 0,
    reservedUsd: 0,
    resetsAt: expect.any(String),
  });
  expect(periodEnds(before, nextDay)).toContain(budget.resetsAt);

  const entry = await listed(keyId);
  expect(entry.budget).toMatchObject({ limitUsd: 12.5, period: 'day', spentUsd: 0, reservedUsd: 0 });
  expect(periodEnds(before, nextDay)).toContain(entry.budget.resetsAt);
});

test("the listing shows the current period's settled spend and open reservations, and null for keys without a budget", async () => {
  const budgeted = await create({ budget: { limitUsd: 10, period: 'day' } });
  const plain = await create({ name: 'no budget' });
  expect([budgeted.status, plain.status]).toEqual([201, 201]);
  const keyId: string = budgeted.body.data.keyId;
  expect(plain.body.data.budget).toBeNull();

  const today = budgetCounterRef(keyBudgetScope(keyId), 'day', new Date());
  await settleBudget(today, 0, 1_500_000);
  expect(await reserveBudget(today, 10_000_000, 250_000)).toBe(true);
  // Another period's counter is not this one's spend.
  await settleBudget(budgetCounterRef(keyBudgetScope(keyId), 'day', new Date(Date.parse('2020-01-01'))), 0, 9_000_000);

  const [entry, plainEntry] = await Promise.all([listed(keyId), listed(plain.body.data.keyId)]);
  expect(entry.budget).toMatchObject({ limitUsd: 10, period: 'day', spentUsd: 1.5, reservedUsd: 0.25 });
  expect(plainEntry.budget).toBeNull();
});

test('PATCH sets a monthly budget, changes it to total, and null removes it; each answer is the key as changed', async () => {
  const created = await create({ name: 'patched', rateLimit: 40 });
  const keyId: string = created.body.data.keyId;
  expect(created.body.data.budget).toBeNull();

  const before = new Date();
  const monthly = await patch(keyId, { budget: { limitUsd: 300, period: 'month' } });
  expect(monthly.status).toBe(200);
  expect(monthly.body.data).toMatchObject({ keyId, id: keyId, updated: true, name: 'patched', rateLimit: 40 });
  expect(monthly.body.data.budget).toMatchObject({ limitUsd: 300, period: 'month', spentUsd: 0, reservedUsd: 0 });
  expect(periodEnds(before, nextMonth)).toContain(monthly.body.data.budget.resetsAt);
  const listedMonthly = await listed(keyId);
  expect(listedMonthly.budget).toEqual(monthly.body.data.budget);

  await settleBudget(budgetCounterRef(keyBudgetScope(keyId), 'total', new Date()), 0, 2_000_000);
  const total = await patch(keyId, { budget: { limitUsd: 0.5, period: 'total' } });
  expect(total.status).toBe(200);
  // A total budget has no end; its spend is everything settled against the key.
  expect(total.body.data.budget).toEqual({
    limitUsd: 0.5,
    period: 'total',
    spentUsd: 2,
    reservedUsd: 0,
    resetsAt: null,
  });

  // Null leaves the other fields as they are but removes the budget.
  const removed = await patch(keyId, { name: null, budget: null });
  expect(removed.status).toBe(200);
  expect(removed.body.data).toMatchObject({ keyId, name: 'patched', budget: null });
  expect((await listed(keyId)).budget).toBeNull();

  // A change of other fields keeps a budget.
  expect((await patch(keyId, { budget: { limitUsd: 1, period: 'day' } })).status).toBe(200);
  const renamed = await patch(keyId, { name: 'renamed' });
  expect(renamed.body.data).toMatchObject({ name: 'renamed', budget: { limitUsd: 1, period: 'day' } });
});

test('the admin API creates a key with a budget, which its account then lists', async () => {
  const before = new Date();
  const created = await adminCreate({ name: 'partner', budget: { limitUsd: 99.99, period: 'month' } });
  expect(created.status).toBe(201);
  const { keyId, budget } = created.body.data;
  expect(budget).toMatchObject({ limitUsd: 99.99, period: 'month', spentUsd: 0, reservedUsd: 0 });
  expect(periodEnds(before, nextMonth)).toContain(budget.resetsAt);
  expect((await listed(keyId)).budget).toEqual(budget);
});

const BAD_BUDGETS: readonly [unknown, string][] = [
  [{ limitUsd: 0, period: 'day' }, 'budget.limitUsd'],
  [{ limitUsd: -5, period: 'day' }, 'budget.limitUsd'],
  [{ limitUsd: 0.0000004, period: 'day' }, 'budget.limitUsd'],
  [{ limitUsd: 1_000_000_001, period: 'day' }, 'budget.limitUsd'],
  [{ limitUsd: '5', period: 'day' }, 'budget.limitUsd'],
  [{ period: 'day' }, 'budget.limitUsd'],
  [{ limitUsd: 5, period: 'week' }, 'budget.period'],
  [{ limitUsd: 5 }, 'budget.period'],
  [{ limitUsd: 5, period: 'day', currency: 'EUR' }, 'budget.currency'],
  ['lots', 'budget'],
  [[5, 'day'], 'budget'],
];

test.each(BAD_BUDGETS)('budget %j is a 400 naming %s on create, PATCH and the admin API', async (budget, field) => {
  const { keyId } = (await create({ name: 'target' })).body.data;
  const answers = await Promise.all([create({ budget }), patch(keyId, { budget }), adminCreate({ budget })]);
  for (const answer of answers) {
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', field });
    expect(answer.body.error.message.startsWith(`${field}: `)).toBe(true);
  }
  // Nothing was changed by the refused PATCH.
  expect((await listed(keyId)).budget).toBeNull();
});

/** A request as this process's own authentication (the production code, on the runtime's table) reads it. */
const requestWith = (key: string, origin?: string): GatewayRequest => ({
  method: 'POST',
  path: '/api/v1/battle',
  headers: { authorization: `Bearer ${key}`, ...(origin ? { origin } : {}) },
  query: {},
  pathParams: {},
  cookies: {},
  rawBody: '',
  sourceIp: '127.0.0.1',
  platformRequestId: 'test',
  door: 'restApi',
  baseUrl: '',
});

test("a key's principal carries its budget, and a removed budget leaves it once the key directory reads again", async () => {
  const origin = 'https://budgeted.example';
  const secret = await create({ budget: { limitUsd: 2, period: 'day' } });
  const publishable = await create({
    type: 'publishable',
    allowedOrigins: [origin],
    budget: { limitUsd: 0.75, period: 'total' },
  });
  expect([secret.status, publishable.status]).toEqual([201, 201]);
  await expect(authenticate(requestWith(secret.body.data.key), ['secretKey'])).resolves.toMatchObject({
    kind: 'secretKey',
    budget: { limitMicroUsd: 2_000_000, period: 'day' },
  });
  await expect(authenticate(requestWith(publishable.body.data.key, origin), ['publishableKey'])).resolves.toMatchObject(
    { kind: 'publishableKey', budget: { limitMicroUsd: 750_000, period: 'total' } },
  );

  expect((await patch(secret.body.data.keyId, { budget: null })).status).toBe(200);
  // This instance cached the key with its budget; the directory's TTL bounds how long it keeps it.
  for (;;) {
    const principal = await authenticate(requestWith(secret.body.data.key), ['secretKey']);
    if (!('budget' in principal)) break;
    await new Promise((done) => setTimeout(done, 100));
  }
}, 30_000);
