import { useGateway } from './support/gateway-fixture.js';
import { adminKey, provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';

/**
 * The adversarial requests, five at once, against the local runtime (one process serving
 * everything, as an instance serves its requests): each is a clear 400 or an answer, never a 5xx
 * or a crash, another tenant's small requests keep flowing, and the runtime is healthy afterwards.
 *
 * "Keep flowing" is shown by count, not by the clock: the other tenant's calls, made one after
 * another, go on being answered while the attack is under way (a stalled or crashed runtime, as
 * the 2 KB schema caused before, answers none). How long the loop is held per check is bounded by
 * the step budgets (test/unit/chat/guardrails/schema-evaluator.test.ts) and measured on plain Node by
 * `npm run bench -- schema`; a wall-clock bound here would fail on a busy machine.
 */

const local = useGateway({ env: { POWERTOOLS_LOG_LEVEL: 'ERROR' } });
let attacker: string;
let bystander: string;

beforeAll(async () => {
  const a = await provisionAccount(local.gateway, 'adversary');
  const b = await provisionAccount(local.gateway, 'bystander');
  attacker = (await adminKey(local.gateway, { accountId: a.accountId, type: 'secret', rateLimit: 10000 })).key;
  bystander = (await adminKey(local.gateway, { accountId: b.accountId, type: 'secret', rateLimit: 10000 })).key;
});

const b64 = (text: string) => Buffer.from(text).toString('base64');

/** A chat completion whose model answers `answer`, checked against `schema`. */
const checked = (schema: Record<string, unknown>, answer: string) =>
  call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(attacker), 'X-Cache': 'no-cache' },
    body: {
      model: 'gpt',
      messages: [{ role: 'user', content: `[sim:reply_b64=${b64(answer)}]` }],
      guardrails: { enabled: ['schema_validation'] },
      response_format: { type: 'json_schema', json_schema: { name: 's', schema } },
    },
  });

function fanOutChain(links: number): Record<string, unknown> {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < links; i++)
    $defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }, { type: 'null' }] };
  $defs[`a${links}`] = { type: 'null' };
  return { $defs, $ref: '#/$defs/a0' };
}

/** A streamed answer redacted for PII: 500 KB of `(1) `, each a 4-character delta from the simulator. */
async function redactedStream(): Promise<{ status: number; text: string }> {
  const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(attacker), 'X-Guardrails': 'pii' },
    body: {
      model: 'gpt',
      stream: true,
      messages: [{ role: 'user', content: `[sim:reply_b64=${b64('(1) '.repeat(125_000))}]` }],
    },
  });
  return { status: answer.status, text: answer.text };
}

const adversaries = () => [
  // The 2 KB request that grew the heap to 4 GB and took the runtime down.
  checked(fanOutChain(24), '1'),
  // uniqueItems over 40,000 distinct objects: 110 s of a frozen loop before.
  checked({ type: 'array', uniqueItems: true }, JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ k: i })))),
  // An enum of 300 objects against 20,000 items.
  checked(
    { type: 'array', items: { enum: Array.from({ length: 300 }, (_, i) => ({ k: i })) } },
    JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ k: i % 300 }))),
  ),
  // Wide alternatives failing on every item.
  checked(
    {
      type: 'array',
      items: { anyOf: Array.from({ length: 10 }, (_, i) => ({ type: 'object', required: [`k${i}`] })) },
    },
    JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ k: i }))),
  ),
];

/** Sequential calls from the other tenant until `until` settles (3,000 at most): how many were answered before it did. */
async function callsWhile(until: Promise<unknown>): Promise<number> {
  let settled = false;
  void until.finally(() => (settled = true));
  let answeredBefore = 0;
  for (let i = 0; i < 3_000 && !settled; i++) {
    const answer = await call(local.gateway.url('/api/v1/models'), { headers: bearer(bystander) });
    expect(answer.status).toBe(200);
    if (!settled) answeredBefore++;
  }
  return answeredBefore;
}

test('adversarial requests at once: clear answers, no 5xx, the other tenant keeps flowing', async () => {
  const attack = Promise.all(adversaries());
  const stream = redactedStream();
  const answeredDuring = await callsWhile(Promise.allSettled([attack, stream]));
  const answers = await attack;
  const streamed = await stream;
  expect(streamed.status).toBe(200);
  expect(streamed.text.trim().endsWith('data: [DONE]')).toBe(true);

  for (const answer of answers) {
    expect(answer.status).toBeLessThan(500);
    if (answer.status !== 200) {
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('SCHEMA_VALIDATION_FAILED');
    }
  }
  expect(answers[0]!.body.error.message).toMatch(/must be null/);
  // Each within the step budget: checked in full, and valid.
  expect(answers[1]!.status).toBe(200);
  expect(answers[2]!.status).toBe(200);
  expect(answers[3]!.body.error.message).toMatch(/\/0 must have required property 'k0'/);
  expect(answeredDuring).toBeGreaterThanOrEqual(10);

  const health = await call(local.gateway.url('/api/health'));
  expect(health.status).toBe(200);
  expect(health.body.data.status).toBe('healthy');
}, 120_000);
