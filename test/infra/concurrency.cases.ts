import fc from 'fast-check';
import { planReservations } from '../../lib/concurrency-policy.js';
import { routes } from '../../lib/routes.js';
import { build, functionLogicalId, type Built } from './support.js';

/**
 * Reserved concurrency: a default partition (streaming routes capped, control routes kept a
 * floor) derived from the account's quota, and every plan checked at synth against that quota,
 * since Lambda refuses a reservation that leaves fewer than 100 unreserved only at deploy time.
 */

/** Written out independently of lib/: the documented defaults at the default quota of 1,000. */
const DOCUMENTED_AT_1000: Readonly<Record<string, number>> = {
  'chat-completions': 162,
  'responses-create': 18,
  battle: 18,
  fight: 18,
  'chat-legacy': 18,
  'media-speech': 18,
  'media-music': 18,
  'fashion-subscribe': 18,
  'sessions-events': 18,
  'arena-leaderboard': 18,
  'auth-login': 18,
  'usage-get': 18,
  'keys-create': 9,
  'keys-list': 9,
  'keys-update': 9,
  'keys-delete': 9,
  'media-video-status': 27,
  'fashion-status': 27,
};

/** Every route's ReservedConcurrentExecutions in the template, routes without one left out. */
function reservedIn(built: Built): Record<string, number> {
  const resources = built.template.toJSON().Resources;
  const found: Record<string, number> = {};
  for (const route of routes) {
    const reserved = resources[functionLogicalId(built.stack, route.id)].Properties.ReservedConcurrentExecutions;
    if (reserved !== undefined) found[route.id] = reserved as number;
  }
  return found;
}

const sum = (reservations: Readonly<Record<string, number>>) =>
  Object.values(reservations).reduce((total, reserved) => total + reserved, 0);

describe('the default partition', () => {
  let built: Built;
  beforeAll(() => {
    built = build();
  });

  test('reserves the documented numbers: every streaming route capped, the control routes kept a floor', () => {
    expect(reservedIn(built)).toEqual(DOCUMENTED_AT_1000);
    for (const route of routes.filter((r) => r.streaming)) expect(Object.keys(DOCUMENTED_AT_1000)).toContain(route.id);
  });

  test('leaves at least 100 unreserved, and room for a second stack with the same defaults', () => {
    const reserved = sum(reservedIn(built));
    expect(1000 - reserved).toBeGreaterThanOrEqual(100);
    expect(1000 - 2 * reserved).toBeGreaterThanOrEqual(100);
    // No reservation on the job task functions or the deployment-time function either.
    const others = Object.values(built.template.findResources('AWS::Lambda::Function')).filter(
      (fn) => fn['Properties']['ReservedConcurrentExecutions'] !== undefined,
    );
    expect(others).toHaveLength(Object.keys(DOCUMENTED_AT_1000).length);
  });

  test('scales with the quota', () => {
    expect(reservedIn(build({ accountConcurrency: 3100 }))).toMatchObject({
      'chat-completions': 540,
      'responses-create': 60,
      battle: 60,
      'fashion-status': 90,
      'keys-list': 30,
    });
  });

  test('an explicit reservation wins over the partition for its route', () => {
    const reserved = reservedIn(build({ reservedConcurrency: { 'chat-completions': 500, health: 5 } }));
    expect(reserved).toEqual({ ...DOCUMENTED_AT_1000, 'chat-completions': 500, health: 5 });
  });

  test('switched off, only explicit reservations remain', () => {
    expect(reservedIn(build({ concurrencyPartition: false }))).toEqual({});
    expect(reservedIn(build({ concurrencyPartition: false, reservedConcurrency: { fight: 7 } }))).toEqual({ fight: 7 });
  });
});

describe('validation against the account quota', () => {
  test('a low quota fails the synth with a message naming the routes and the numbers', () => {
    expect(() => build({ accountConcurrency: 50 })).toThrow(
      /reserved concurrency adds up to 18 \(arena-leaderboard 1, auth-login 1, .*chat-completions 1, .*responses-create 1, .*usage-get 1\), more than accountConcurrency 50 allows: Lambda keeps 100 unreserved, so at most 0 can be reserved.*-c accountConcurrency=<n>.*-c concurrencyPartition=off/,
    );
  });

  test('explicit reservations beyond the quota fail too, partition or not', () => {
    const message = /adds up to 950 \(chat-completions 900, health 50\).*accountConcurrency 1000.*at most 900/;
    expect(() =>
      build({ concurrencyPartition: false, reservedConcurrency: { 'chat-completions': 900, health: 50 } }),
    ).toThrow(message);
    expect(() => build({ reservedConcurrency: { 'chat-completions': 700 } })).toThrow(
      /adds up to 988 \(chat-completions 700, fashion-status 27, media-video-status 27, .*\).*at most 900/,
    );
  });

  test('at the limit exactly, the synth goes through', () => {
    const built = build({
      concurrencyPartition: false,
      reservedConcurrency: { 'chat-completions': 400 },
      accountConcurrency: 500,
    });
    expect(reservedIn(built)).toEqual({ 'chat-completions': 400 });
  });

  test('for any quota the default plan leaves 100 unreserved, or is refused saying so', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (accountConcurrency) => {
        let plan: Map<string, number>;
        try {
          plan = planReservations(routes, { accountConcurrency, partition: true, explicit: {} });
        } catch (error) {
          expect(accountConcurrency).toBeLessThan(200);
          expect((error as Error).message).toContain(`accountConcurrency ${accountConcurrency} allows`);
          return;
        }
        const reserved = [...plan.values()];
        expect(reserved.every((n) => Number.isInteger(n) && n >= 1)).toBe(true);
        expect(accountConcurrency - reserved.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(100);
        expect([...plan.keys()].sort()).toEqual(Object.keys(DOCUMENTED_AT_1000).sort());
      }),
    );
  });
});
