import fc from 'fast-check';
import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * Property: whatever JSON (or non-JSON) a client sends to any body-taking endpoint, the answer
 * is never a 5xx, and every 400 names the field at fault in both the body and the message.
 */
const local = useGateway({ account: 'fuzz', key: { via: 'dashboard' } });

const anyValue = fc.oneof(
  fc.jsonValue(),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 10001, 1e308, '', ' ', null, true, [], {}),
);
const fieldsOf = (names: string[], plausible: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .dictionary(fc.constantFrom(...names, 'unexpected', '__proto__', 'constructor'), anyValue)
    .chain((base) => fc.record(plausible, { requiredKeys: [] }).map((good) => ({ ...base, ...good })));
const body = (names: string[], plausible: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc.oneof(
    fieldsOf(names, plausible).map((value) => JSON.stringify(value)),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string(),
  );

/** Budgets near and past their rules: tiny, huge, negative and non-finite limits, unknown periods. */
const budget = fc.record(
  {
    limitUsd: fc.oneof(fc.double(), fc.double({ min: 0, max: 0.000002 }), fc.integer(), anyValue),
    period: fc.oneof(fc.constantFrom('day', 'month', 'total', 'week', 'DAY'), anyValue),
    unexpected: anyValue,
  },
  { requiredKeys: [] },
);

function expectWellFormed(answer: Answer): void {
  expect(answer.status).toBeLessThan(500);
  if (answer.status === 400) {
    const error = answer.body.error;
    expect(typeof error.field).toBe('string');
    expect(error.field.length).toBeGreaterThan(0);
    expect(error.message).toContain(error.field);
  }
}

const endpoints: {
  name: string;
  method: string;
  path: () => string;
  headers: () => Record<string, string>;
  body: fc.Arbitrary<string>;
}[] = [
  {
    name: 'POST /api/v1/keys',
    method: 'POST',
    path: () => '/api/v1/keys',
    headers: () => local.account.session,
    body: body(['name', 'rateLimit', 'type', 'allowedOrigins', 'budget'], {
      rateLimit: fc.integer({ min: -5, max: 10005 }),
      budget,
    }),
  },
  {
    name: 'PATCH /api/v1/keys/{id}',
    method: 'PATCH',
    path: () => `/api/v1/keys/${local.keyId}`,
    headers: () => local.account.session,
    // Never disable the key: later runs would still pass, but keep the fixture usable.
    body: body(['name', 'rateLimit', 'budget'], { name: fc.string({ maxLength: 120 }), budget }),
  },
  {
    name: 'POST /api/v1/auth/login',
    method: 'POST',
    path: () => '/api/v1/auth/login',
    headers: () => ({}),
    body: body(['email', 'password'], { email: fc.emailAddress(), password: fc.string() }),
  },
  {
    name: 'POST /api/admin/v1/accounts',
    method: 'POST',
    path: () => '/api/admin/v1/accounts',
    headers: () => bearer(local.gateway.info.adminToken),
    body: body(['email', 'name'], { email: fc.emailAddress(), name: fc.string({ maxLength: 110 }) }),
  },
  {
    name: 'POST /api/admin/v1/keys',
    method: 'POST',
    path: () => '/api/admin/v1/keys',
    headers: () => bearer(local.gateway.info.adminToken),
    body: body(['accountId', 'type', 'name', 'rateLimit', 'allowedOrigins', 'budget'], {
      budget,
      accountId: fc
        .constantFrom('fixture', 'acc_missing')
        .map((id) => (id === 'fixture' ? local.account.accountId : id)),
      type: fc.constantFrom('secret', 'publishable', 'other'),
      allowedOrigins: fc.array(
        fc.webUrl().map((url) => new URL(url).origin),
        { maxLength: 3 },
      ),
    }),
  },
];

test.each(endpoints.map((endpoint) => [endpoint.name, endpoint] as const))(
  '%s: no body yields a 5xx; every 400 names its field',
  async (_name, endpoint) => {
    await fc.assert(
      fc.asyncProperty(endpoint.body, async (raw) => {
        const answer = await call(local.gateway.url(endpoint.path()), {
          method: endpoint.method,
          headers: { ...endpoint.headers(), 'Content-Type': 'application/json' },
          rawBody: raw,
        });
        expectWellFormed(answer);
      }),
      { numRuns: 60 },
    );
  },
  60_000,
);

test('query strings of the usage routes: no 5xx, 400s name the field', async () => {
  const query = fc.dictionary(
    fc.constantFrom('from', 'to', 'accountId', 'x'),
    fc.oneof(
      fc.string(),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    ),
  );
  await fc.assert(
    fc.asyncProperty(query, fc.boolean(), async (params, asAdmin) => {
      const search = new URLSearchParams(params).toString();
      const answer = asAdmin
        ? await call(local.gateway.url(`/api/admin/v1/usage?${search}`), {
            headers: bearer(local.gateway.info.adminToken),
          })
        : await call(local.gateway.url(`/api/v1/usage?${search}`), { headers: bearer(local.gateway.info.apiKey) });
      expectWellFormed(answer);
    }),
    { numRuns: 80 },
  );
}, 60_000);

describe('query parameters a route does not take (docs/interface.md: refused, not ignored)', () => {
  const admin = () => bearer(local.gateway.info.adminToken);
  test.each([
    ['/api/v1/usage?form=2026-01-01', 'form', () => bearer(local.key)],
    ['/api/admin/v1/usage?accountId=acc_x&from=2026-01-01&key=k', 'key', admin],
    ['/api/v1/media/video/status?task_id=t&taskId=t', 'taskId', () => bearer(local.key)],
    ['/api/v1/themes?platfrom=game', 'platfrom', () => bearer(local.key)],
    ['/api/v1/keys?page=2', 'page', () => local.account.session],
    ['/api/health?verbose=1', 'verbose', () => ({})],
  ])('%s is a 400 naming %s', async (path, name, headers) => {
    const answer = await call(local.gateway.url(path), { headers: headers() });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', field: name });
    expect(answer.body.error.message).toMatch(new RegExp(`^${name}: is not a query parameter of this route`));
  });

  test('the OpenAI-shaped routes name it as param; the message lists what the route takes', async () => {
    const models = await call(local.gateway.url('/api/v1/models?limit=5'), { headers: bearer(local.key) });
    expect(models.status).toBe(400);
    expect(models.body.error).toMatchObject({ code: 'BAD_REQUEST', param: 'limit', type: 'invalid_request_error' });
    expect(models.body.error.message).toBe('limit: is not a query parameter of this route (this route takes none)');
    const themes = await call(local.gateway.url('/api/v1/themes?plat=game'), { headers: bearer(local.key) });
    expect(themes.body.error.message).toBe(
      'plat: is not a query parameter of this route (this route takes id, platform)',
    );
  });

  test('the parameters a route takes still work', async () => {
    const themes = await call(local.gateway.url('/api/v1/themes?platform=game'), { headers: bearer(local.key) });
    expect(themes.status).toBe(200);
    const usage = await call(local.gateway.url('/api/v1/usage?from=2026-01-01&to=2026-01-02&keyId=none'), {
      headers: bearer(local.key),
    });
    expect(usage.status).toBe(200);
  });
});

describe("bodies above Lambda's 6 MB request payload limit", () => {
  const LAMBDA_LIMIT = 6 * 1024 * 1024;
  const bodyOf = (bytes: number) =>
    JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x'.repeat(bytes) }] });

  test('are 413 in the OpenAI shape on chat completions', async () => {
    const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
      headers: { ...bearer(local.gateway.info.apiKey), 'Content-Type': 'application/json' },
      rawBody: bodyOf(LAMBDA_LIMIT + 1024),
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String), type: 'invalid_request_error', param: null },
    });
  });

  test('are 413 in the envelope on key management; a body just under the limit reaches the handler', async () => {
    const over = await call(local.gateway.url('/api/v1/keys'), {
      headers: { ...local.account.session, 'Content-Type': 'application/json' },
      rawBody: JSON.stringify({ name: 'x'.repeat(LAMBDA_LIMIT) }),
    });
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ success: false, error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
    const under = await call(local.gateway.url('/api/v1/keys'), {
      headers: { ...local.account.session, 'Content-Type': 'application/json' },
      rawBody: JSON.stringify({ name: 'x'.repeat(LAMBDA_LIMIT - 64 * 1024) }),
    });
    expect(under.status).toBe(400);
    expect(under.body.error.field).toBe('name');
  });
});
