import { LEGACY_CHAT_DEPRECATED_AT_MS } from '../../lambdas/arena/legacy-deprecation.js';
import { useGateway } from './support/gateway-fixture.js';
import { bearer, call, type Answer } from './support/http.js';
import { simulatedReply } from './support/simulators.js';

/**
 * docs/interface.md §9.3: moving from the deprecated POST /api/chat to the v1 route means
 * changing the path and dropping `mode`; headers, auth, body and answers stay the same. And the
 * legacy route says it is deprecated on every answer, errors included (Deprecation, Link, and
 * Sunset where the deployment set one: here through LEGACY_CHAT_SUNSET, as `npm start` reads it).
 */
const SUNSET = '2027-06-30';
const local = useGateway({
  env: { LEGACY_CHAT_SUNSET: SUNSET },
  account: 'legacy-migration',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

const LEGACY = '/api/chat';
const V1 = '/api/v1/chat/completions';
const post = (path: string, body: unknown, headers: Record<string, string> = bearer(local.key)) =>
  call(local.gateway.url(path), { headers: { ...headers, 'X-Cache': 'no-cache' }, body });

/** The answer's shape: every value replaced by its type, ids and times included. */
const shapeOf = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(shapeOf)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([key, field]) => [key, shapeOf(field)]))
      : value === null
        ? 'null'
        : typeof value;

/** The JSON of each `data:` frame of an SSE answer, `[DONE]` as itself. */
const framesOf = (answer: Answer): unknown[] =>
  answer.text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));

describe('the legacy chat-mode body on the v1 route, with mode dropped', () => {
  const body = {
    model: 'claude',
    message: 'migrating',
    messages: [
      { role: 'user', content: 'an earlier question' },
      { role: 'assistant', content: 'an earlier answer' },
    ],
  };

  test('stream:false: the same answer, shape and headers as on /api/chat', async () => {
    const legacy = await post(LEGACY, { ...body, mode: 'chat', stream: false });
    const v1 = await post(V1, { ...body, stream: false });
    expect([legacy.status, v1.status]).toEqual([200, 200]);
    expect(v1.body).toMatchObject({
      object: 'chat.completion',
      choices: [
        {
          message: {
            role: 'assistant',
            content: expect.stringMatching(simulatedReply('claude-sonnet-4-5', 'migrating')),
          },
        },
      ],
    });
    expect(shapeOf(v1.body)).toEqual(shapeOf(legacy.body));
    expect(v1.body.choices[0].message.content).toBe(legacy.body.choices[0].message.content);
    for (const header of ['content-type', 'x-model-used', 'x-retry-count', 'x-cache', 'x-ratelimit-limit'])
      expect([header, v1.headers.get(header)]).toEqual([header, legacy.headers.get(header)]);
  });

  test('its own default, stream true: both stream the same chat chunks', async () => {
    const legacy = await post(LEGACY, { ...body, mode: 'chat' });
    const v1 = await post(V1, body);
    expect([legacy.status, v1.status]).toEqual([200, 200]);
    expect(v1.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(legacy.headers.get('content-type')).toBe(v1.headers.get('content-type'));
    const [legacyFrames, v1Frames] = [framesOf(legacy), framesOf(v1)];
    expect(v1Frames.at(-1)).toBe('[DONE]');
    expect(
      v1Frames.slice(0, -1).every((frame) => (frame as { object: string }).object === 'chat.completion.chunk'),
    ).toBe(true);
    expect(v1Frames.map(shapeOf)).toEqual(legacyFrames.map(shapeOf));
  });

  test('mode may say chat; battle and fight are refused naming mode, in the OpenAI shape', async () => {
    expect((await post(V1, { ...body, mode: 'chat', stream: false })).status).toBe(200);
    const battle = await post(V1, { ...body, mode: 'battle' });
    expect(battle.status).toBe(400);
    expect(battle.body.error).toMatchObject({ type: 'invalid_request_error', code: 'BAD_REQUEST', param: 'mode' });
    expect(battle.body.error.message).toMatch(/^mode: must be chat, or left out: battle and fight are POST/);
  });

  test.each([
    [{ message: 'no model' }, 'model', /^model: is required/],
    [{ model: 'claude', message: ' ' }, 'message', /^message: must be text that is not empty or blank/],
    [
      { model: 'claude', message: 'x', messages: [{ role: 'tool', content: 'x' }] },
      'messages[0].role',
      /must be one of user, assistant, system/,
    ],
    [{ model: 'nope', message: 'x' }, 'model', /^model: /],
  ])('%j is a 400 naming %s, as the legacy route names it', async (sent, param, rule) => {
    const v1 = await post(V1, sent);
    expect(v1.status).toBe(400);
    expect(v1.body.error).toMatchObject({ code: 'BAD_REQUEST', param, message: expect.stringMatching(rule) });
    const legacy = await post(LEGACY, { ...sent, mode: 'chat' });
    expect(legacy.status).toBe(400);
  });
});

describe('the legacy route says it is deprecated, on every answer', () => {
  const noticed = (answer: Answer) => ({
    deprecation: answer.headers.get('deprecation'),
    sunset: answer.headers.get('sunset'),
    link: answer.headers.get('link'),
  });
  const NOTICE = {
    deprecation: `@${LEGACY_CHAT_DEPRECATED_AT_MS / 1000}`,
    sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
    link: expect.stringContaining('<v1/chat/completions>; rel="successor-version"; title="mode chat"'),
  };

  test.each([
    ['a chat answer', () => post(LEGACY, { mode: 'chat', model: 'gpt', message: 'hi', stream: false }), 200],
    [
      'a battle answer',
      () => post(LEGACY, { mode: 'battle', models: ['gpt', 'claude'], message: 'hi', stream: false }),
      200,
    ],
    ['a 400 (no mode)', () => post(LEGACY, { message: 'hi' }), 400],
    ['a 400 (not JSON)', () => call(local.gateway.url(LEGACY), { headers: bearer(local.key), rawBody: '{' }), 400],
    ['a 401 (no key)', () => post(LEGACY, { mode: 'chat', model: 'gpt', message: 'hi' }, {}), 401],
  ])('%s', async (_what, send, status) => {
    const answer = await send();
    expect(answer.status).toBe(status);
    expect(noticed(answer)).toEqual(NOTICE);
  });

  test('the links name every successor and the document that marks the route deprecated', async () => {
    const { link } = noticed(await post(LEGACY, { message: 'hi' }));
    expect(link!.split(', ')).toEqual([
      '<v1/chat/completions>; rel="successor-version"; title="mode chat"',
      '<v1/battle>; rel="successor-version"; title="mode battle"',
      '<v1/fight>; rel="successor-version"; title="mode fight"',
      '<v1/openapi.json>; rel="deprecation"',
    ]);
    // Resolved against the route's own URL (RFC 3986), each is a route of the gateway.
    for (const href of link!.matchAll(/<([^>]+)>/g)) {
      const resolved = new URL(href[1]!, local.gateway.url(LEGACY)).pathname;
      expect(['/api/v1/chat/completions', '/api/v1/battle', '/api/v1/fight', '/api/v1/openapi.json']).toContain(
        resolved,
      );
    }
  });

  test('a v1 route carries no deprecation notice', async () => {
    const answer = await post(V1, { model: 'gpt', message: 'hi', stream: false });
    expect(answer.status).toBe(200);
    expect(noticed(answer)).toEqual({ deprecation: null, sunset: null, link: null });
  });
});
