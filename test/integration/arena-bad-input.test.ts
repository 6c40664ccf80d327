import fc from 'fast-check';
import { arenaStream, type ArenaStream } from './support/arena.js';
import { useGateway } from './support/gateway-fixture.js';
import { validateArenaStream } from '../support/arena-stream-validator.js';

/**
 * Property (issue 9, Acceptance "Bad input"): no ChatRequest body on the three arena routes
 * yields a 5xx or a stall; every 400 names, in `error.field`, a field of the body (or a required
 * one it left out); and valid bodies stream whole, valid sessions.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'ERROR' },
  account: 'arena-fuzz',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

const ROUTES = ['/api/v1/battle', '/api/v1/fight', '/api/chat'] as const;
/** Fields a body may leave out that a refusal then names. */
const REQUIRED = ['message', 'mode', 'models', 'model', 'messages'];
/** Every answer is small: a session of many agents and rounds still ends in a few seconds. */
const QUESTION = 'Name a prime. [sim:words=3]';

const anything = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, '', 0, -1, 1.5, true, [], {}));
const alias = fc.constantFrom(
  'gpt',
  'claude',
  'gemini',
  'grok',
  'deepseek',
  'qwen',
  'mistral',
  'kimi',
  'llama',
  'nope',
);
const turn = fc.record({
  role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'tool'), anything),
  content: fc.oneof(fc.string({ maxLength: 20 }), anything),
});
const fields = {
  message: fc.oneof(fc.constantFrom(QUESTION, '', ' ', 'x'.repeat(2001)), fc.string({ maxLength: 30 }), anything),
  models: fc.oneof(
    fc.uniqueArray(alias, { maxLength: 4 }),
    fc.array(alias, { maxLength: 3 }),
    fc.uniqueArray(alias, { maxLength: 3 }).map((list) => list.join(', ')),
    anything,
  ),
  rounds: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.constantFrom(10, 11, 1.5, '2'), anything),
  fightStyle: fc.oneof(fc.constantFrom('brawl', 'blitz', 'melee'), anything),
  agentMode: fc.oneof(fc.constantFrom('multiple-gpt', 'multiple-llama', 'multiple-', 'single'), anything),
  messages: fc.oneof(fc.array(turn, { maxLength: 3 }), anything),
  image_url: fc.oneof(fc.constantFrom('https://example.com/cat.png', 'ftp://example.com/x', 'data:,'), anything),
  stream: fc.oneof(fc.boolean(), anything),
  mode: fc.oneof(fc.constantFrom('chat', 'battle', 'fight'), anything),
  model: fc.oneof(fc.constantFrom('gpt', 'nope'), anything),
};
const extras = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), anything, { maxKeys: 2 });

type Route = (typeof ROUTES)[number];
type Body = Record<string, unknown>;
const isAlias = (name: string) => name !== 'nope';
const fighter = (name: string) => isAlias(name) && name !== 'llama';

/** A body the route accepts: small sessions of a few agents and rounds. */
const validBody = (route: Route): fc.Arbitrary<Body> => {
  const battle = fc.record({
    message: fc.constant(QUESTION),
    models: fc.uniqueArray(alias.filter(isAlias), { minLength: 2, maxLength: 2 }),
  });
  const fight = fc.record(
    {
      message: fc.constant(QUESTION),
      models: fc.uniqueArray(alias.filter(fighter), { minLength: 2, maxLength: 4 }),
      rounds: fc.integer({ min: 1, max: 2 }),
      fightStyle: fc.constantFrom('brawl', 'blitz', 'melee'),
    },
    { requiredKeys: ['message', 'models'] },
  );
  if (route === '/api/v1/battle') return battle;
  if (route === '/api/v1/fight') return fight;
  return fc.oneof(
    battle.map((b) => ({ ...b, mode: 'battle' })),
    fight.map((b) => ({ ...b, mode: 'fight' })),
  );
};

/** A valid body with one field replaced by anything (or left out), sometimes with unknown fields. */
const mutatedBody = (route: Route): fc.Arbitrary<Body> =>
  fc
    .tuple(validBody(route), fc.constantFrom(...(Object.keys(fields) as (keyof typeof fields)[])), fc.boolean(), extras)
    .chain(([valid, field, drop, extra]) =>
      fields[field].map((value) => {
        const mutated: Body = { ...valid, [field]: value };
        if (drop) delete mutated[field];
        return Object.keys(extra).length % 2 ? { ...extra, ...mutated } : mutated;
      }),
    );

/** Bodies of every field at random, plus unknown ones. */
const randomBody = fc
  .tuple(fc.record(fields, { requiredKeys: [] }), extras)
  .map(([known, extra]) => ({ ...extra, ...known }) as Body);

const request = fc.constantFrom(...ROUTES).chain((route) =>
  fc.record({
    route: fc.constant(route),
    sent: fc.oneof({ arbitrary: mutatedBody(route), weight: 3 }, { arbitrary: randomBody, weight: 1 }),
  }),
);

/** One answer, read whole, or a failure naming the stall. */
async function answer(route: string, sent: unknown): Promise<ArenaStream> {
  let timer: NodeJS.Timeout | undefined;
  const stall = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no whole answer within 15 s: ${route} ${JSON.stringify(sent)}`)),
      15_000,
    );
  });
  try {
    return await Promise.race([arenaStream(local.gateway, route, local.key, sent), stall]);
  } finally {
    clearTimeout(timer);
  }
}

const modeOf = (route: string, sent: Body) =>
  route === '/api/chat' ? sent['mode'] : route === '/api/v1/battle' ? 'battle' : 'fight';

test('no body yields a 5xx or a stall, and every 400 names one of its fields', async () => {
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(request, async ({ route, sent }) => {
      const reply = await answer(route, sent);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      expect(reply.status).toBeLessThan(500);
      if (reply.status === 400) {
        const { error } = JSON.parse(reply.text);
        expect(error.message).toEqual(expect.any(String));
        expect([...Object.keys(sent), ...REQUIRED]).toContain(/^[^.[]*/.exec(error.field)![0]);
      }
      const mode = modeOf(route, sent);
      if (reply.events.length > 0 && (mode === 'battle' || mode === 'fight'))
        expect(validateArenaStream(reply.events, mode)).toEqual([]);
    }),
    { numRuns: 150 },
  );
  // Both the refusals and the sessions behind them are reached.
  expect(statuses.get(400) ?? 0).toBeGreaterThan(30);
  expect(statuses.get(200) ?? 0).toBeGreaterThan(30);
}, 60_000);

test('valid bodies stream (200) a whole, valid session on every route', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ROUTES).chain((route) => fc.record({ route: fc.constant(route), sent: validBody(route) })),
      async ({ route, sent }) => {
        const reply = await answer(route, sent);
        expect(reply.status).toBe(200);
        expect(validateArenaStream(reply.events, modeOf(route, sent) as 'battle' | 'fight')).toEqual([]);
      },
    ),
    { numRuns: 20 },
  );
}, 60_000);
