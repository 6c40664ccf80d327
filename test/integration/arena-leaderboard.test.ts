import { arenaStream } from './support/arena.js';
import { until } from './support/arena-records.js';
import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';
import { createKey, provisionAccount } from './support/provisioning.js';

/**
 * The leaderboard through HTTP (issue 22 §3): fights played, then the account's leaderboard,
 * computed off the request path (202, then ready), its wins and battles checked against an
 * independent count made from the sessions' own state (`GET /api/v1/sessions/{id}`), a new
 * fight making the kept fit stale, the family filter and style control, bad parameters, and
 * another account that sees none of it. The statistics themselves (the fit against a second
 * solver, interval coverage, a planted position bias) are proven in test/unit/arena/.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'leaderboard',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

const MODELS = ['gpt', 'claude', 'gemini'];
const get = (path: string, key = local.key) => call(local.gateway.url(path), { headers: bearer(key) });

async function fight(message: string): Promise<string> {
  const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
    message,
    models: MODELS,
    rounds: 1,
    fightStyle: 'blitz',
  });
  expect(stream.events.at(-1)!.event.type).toBe('session_complete');
  return stream.headers.get('x-session-id')!;
}

/** Wins, losses and battles per model, counted from the sessions' states: each vote beats every other answer shown. */
async function countedFrom(sessionIds: readonly string[]) {
  const counts = new Map<string, { wins: number; losses: number; battles: number }>();
  const of = (model: string) => counts.get(model) ?? counts.set(model, { wins: 0, losses: 0, battles: 0 }).get(model)!;
  for (const id of sessionIds) {
    const state = (await get(`/api/v1/sessions/${id}`)).body.data;
    for (const round of state.rounds) {
      const modelOf = new Map<string, string>(
        round.answered.map((a: { agent: string; model: string }) => [a.agent, a.model]),
      );
      for (const vote of round.votes) {
        if (vote.votedFor === null) continue;
        const winner = modelOf.get(vote.votedFor)!;
        // A voter's ballot holds every answer but its own.
        for (const [agent, model] of modelOf) {
          if (agent === vote.voter || agent === vote.votedFor || model === winner) continue;
          of(winner).wins++;
          of(model).losses++;
          of(winner).battles++;
          of(model).battles++;
        }
      }
    }
  }
  return counts;
}

const ready = (path: string, key?: string) =>
  until(
    () => get(path, key),
    (answer) => answer.status === 200 && answer.body.data.status === 'ready' && answer.body.data.stale === false,
  );

it('rates the models of the account’s fights, off the request path, with wins counted as the sessions show', async () => {
  const sessions = [await fight('Name a prime.'), await fight('Name a colour.'), await fight('Name a river.')];
  const first = await get('/api/v1/arena/leaderboard');
  expect(first.status).toBe(202);
  expect(first.headers.get('retry-after')).toBe('2');
  expect(first.body.data).toMatchObject({ status: 'computing', styleControl: false });

  const answer: Answer = await ready('/api/v1/arena/leaderboard');
  const board = answer.body.data;
  expect(board).toMatchObject({ status: 'ready', stale: false, sessions: 3, truncated: false });
  expect(board.interval).toMatchObject({ resamples: 1000, level: 0.95 });
  const counted = await countedFrom(sessions);
  expect(
    Object.fromEntries(board.models.map((m: any) => [m.model, { wins: m.wins, losses: m.losses, battles: m.battles }])),
  ).toEqual(Object.fromEntries(counted));
  for (const row of board.models) {
    expect(row.interval[0]).toBeLessThanOrEqual(row.rating);
    expect(row.interval[1]).toBeGreaterThanOrEqual(row.rating);
    expect(MODELS).toContain(row.family);
  }
  const mean = board.models.reduce((sum: number, m: any) => sum + m.rating, 0) / board.models.length;
  expect(Math.abs(mean - 1000)).toBeLessThan(1e-6);
  expect(board.positionBias.votes).toBeGreaterThan(0);

  // Filtered by family: the same rows, fewer of them.
  const onlyGpt = (await get('/api/v1/arena/leaderboard?family=gpt')).body.data;
  expect(onlyGpt.models.map((m: any) => m.family)).toEqual(['gpt']);
  expect(onlyGpt.models[0]).toEqual(board.models.find((m: any) => m.family === 'gpt'));

  // Style control: its own fit, with the style coefficients.
  await get('/api/v1/arena/leaderboard?style_control=true');
  const styled = (await ready('/api/v1/arena/leaderboard?style_control=true')).body.data;
  expect(styled.styleControl).toBe(true);
  expect(Array.isArray(styled.style)).toBe(true);

  // A fight that ends makes the kept fit stale; the next fit counts it.
  sessions.push(await fight('Name a mountain.'));
  const stale = await get('/api/v1/arena/leaderboard');
  expect(stale.body.data).toMatchObject({ status: 'ready', stale: true, sessions: 3 });
  const refreshed = (await ready('/api/v1/arena/leaderboard')).body.data;
  expect(refreshed.sessions).toBe(4);
  expect(
    Object.fromEntries(
      refreshed.models.map((m: any) => [m.model, { wins: m.wins, losses: m.losses, battles: m.battles }]),
    ),
  ).toEqual(Object.fromEntries(await countedFrom(sessions)));
});

it('refuses bad parameters, naming them, and shows another account nothing of this one', async () => {
  for (const [query, field] of [
    ['from=2026-13-01', 'from'],
    ['to=yesterday', 'to'],
    ['from=2026-05-02&to=2026-05-01', 'from'],
    ['from=2020-01-01&to=2026-01-01', 'from'],
    ['style_control=maybe', 'style_control'],
    ['family=nope', 'family'],
    ['limit=5', 'limit'],
  ]) {
    const answer = await get(`/api/v1/arena/leaderboard?${query}`);
    expect([query, answer.status, answer.body.error?.field ?? answer.text]).toEqual([query, 400, field]);
  }
  const other = await provisionAccount(local.gateway, 'leaderboard-other');
  const otherKey = (await createKey(local.gateway, other)).key;
  await get('/api/v1/arena/leaderboard', otherKey);
  const theirs = (await ready('/api/v1/arena/leaderboard', otherKey)).body.data;
  expect(theirs).toMatchObject({ sessions: 0, models: [] });
});
