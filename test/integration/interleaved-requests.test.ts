import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';
import { ledgerItems } from './support/ledger-entries.js';
import { createKey, provisionAccount, type TestAccount } from './support/provisioning.js';
import { simulatedReply } from './support/simulators.js';

/**
 * Many requests in one handler instance at once (issue 20, "Streams at a quarter of today's
 * cost": one execution environment serving many concurrent streams is only safe if nothing of
 * a request lives in module scope). The local runtime runs every route's handler once per
 * process, so this is that case: accounts with and without their own provider key, streamed and
 * whole answers, paced so that their lives overlap, all at once. Each caller gets its own answer,
 * each upstream call carries its own account's credential, and each ledger entry lands in the
 * account that made the request, under its request id.
 */
const local = useGateway({ env: { POWERTOOLS_LOG_LEVEL: 'WARN' }, simulator: 'openai', unthrottled: true });

const ACCOUNTS = 4;
const PER_ACCOUNT = 8;
const OWN_KEY = (n: number) => `sk-own-openai-key-of-account-${n}-0000`;

interface Caller {
  readonly index: number;
  readonly account: TestAccount;
  readonly key: string;
  readonly ownKey?: string;
}

async function caller(index: number): Promise<Caller> {
  const account = await provisionAccount(local.gateway, `interleaved-${index}`);
  const { key } = await createKey(local.gateway, account, { rateLimit: 1000 });
  // Every other account brings its own OpenAI key.
  if (index % 2 === 1) {
    const stored = await call(local.gateway.url('/api/v1/provider-keys'), {
      headers: account.session,
      body: { provider: 'openai', slug: `own-${index}`, apiKey: OWN_KEY(index) },
    });
    expect(stored.status).toBe(201);
    return { index, account, key, ownKey: OWN_KEY(index) };
  }
  return { index, account, key };
}

/** A request whose content names its caller and its place; streamed or whole, alternately. */
async function ask(who: Caller, n: number): Promise<{ said: string; answer: Answer; text: string }> {
  // The simulator takes its directives out of what it repeats.
  const said = `caller ${who.index} request ${n}`;
  const pacing = `[sim:first_token_ms=${20 + ((n * 7) % 40)}] [sim:token_ms=3]`;
  const stream = n % 2 === 0;
  const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(who.key), 'X-Cache': 'no-cache' },
    body: { model: 'gpt', messages: [{ role: 'user', content: `${said} ${pacing}` }], stream },
  });
  const text = stream
    ? answer.text
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? '')
        .join('')
    : answer.body.choices[0].message.content;
  return { said, answer, text };
}

it('concurrent requests of several accounts each get their own answer, credential and ledger entry', async () => {
  const callers = await Promise.all(Array.from({ length: ACCOUNTS }, (_, index) => caller(index)));
  await local.simulator.reset();
  const asked = await Promise.all(
    callers.flatMap((who) => Array.from({ length: PER_ACCOUNT }, (_, n) => ask(who, n).then((r) => ({ who, ...r })))),
  );

  for (const { who, said, answer, text } of asked) {
    expect([who.index, answer.status]).toEqual([who.index, 200]);
    expect(text).toMatch(simulatedReply('gpt-5', said));
  }
  const requestIds = asked.map(({ answer }) => answer.headers.get('x-request-id'));
  expect(new Set(requestIds).size).toBe(asked.length);

  // Each upstream call carried the credential of the account whose text it sent.
  const captured = await local.simulator.requests();
  expect(captured).toHaveLength(asked.length);
  for (const request of captured) {
    const content = String(request.body.messages.at(-1).content);
    const who = callers[Number(/caller (\d+)/.exec(content)![1])]!;
    expect([content, request.headers['authorization']]).toEqual([content, `Bearer ${who.ownKey ?? 'sim-local-key'}`]);
  }

  // Each request's usage is in its own account, once.
  for (const who of callers) {
    const mine = asked.filter((entry) => entry.who === who).map(({ answer }) => answer.headers.get('x-request-id'));
    const ledger = await ledgerUntil(who, mine.length);
    expect(ledger.map((entry) => entry.requestId).sort()).toEqual([...mine].sort());
  }
});

async function ledgerUntil(who: Caller, expected: number) {
  for (let poll = 0; ; poll++) {
    const entries = await ledgerItems(local.gateway, who.account.accountId);
    if (entries.length >= expected || poll > 600) return entries;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
