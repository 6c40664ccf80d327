import { ArenaError } from '../../../lambdas/arena/arena-errors.js';
import {
  arenaRequestValidator,
  checkArenaImageHost,
  legacyChatRequestValidator,
  planArena,
  singleModelRequest,
  type ArenaRequestBody,
} from '../../../lambdas/arena/arena-request.js';
import { fightCapableAliases } from '../../../lambdas/catalog/model-catalog.js';
import { HttpError } from '../../../lambdas/http/errors.js';
import { validate } from '../../../lambdas/http/validation.js';
import { MAX_PUBLIC_URL_CHARS, type HostLookup } from '../../../lambdas/schema/public-url.js';

function refusal(run: () => unknown): { field?: string; kind?: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ArenaError) return { field: error.field, kind: error.kind, message: error.message };
    if (error instanceof HttpError) return { field: error.param, kind: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

const body = (fields: Partial<ArenaRequestBody>): ArenaRequestBody => ({ message: 'Hello', ...fields });

describe('the ChatRequest schema', () => {
  it.each([
    [{}, 'message'],
    [{ message: '' }, 'message'],
    [{ message: '   ' }, 'message'],
    [{ message: 'x'.repeat(2001) }, 'message'],
    [{ message: 'hi', rounds: 0 }, 'rounds'],
    [{ message: 'hi', rounds: 11 }, 'rounds'],
    [{ message: 'hi', rounds: 1.5 }, 'rounds'],
    [{ message: 'hi', models: 5 }, 'models'],
    [{ message: 'hi', stream: 'yes' }, 'stream'],
    [{ message: 'hi', image_url: 'file:///etc/passwd' }, 'image_url'],
    [{ message: 'hi', messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].role'],
    [{ message: 'hi', messages: [{ role: 'user', content: ' ' }] }, 'messages[0].content'],
    [{ message: 'hi', messages: [{ role: 'user', content: ['parts'] }] }, 'messages[0].content'],
  ])('%j is refused naming %s', (value, field) => {
    expect(refusal(() => validate(arenaRequestValidator, value)).field).toBe(field);
  });

  it('accepts 2000 characters, ignores mode on v1, and requires a known mode on the legacy route', () => {
    expect(validate(arenaRequestValidator, { message: 'x'.repeat(2000), mode: 42 })).toBeTruthy();
    expect(refusal(() => validate(legacyChatRequestValidator, { message: 'hi' })).field).toBe('mode');
    expect(refusal(() => validate(legacyChatRequestValidator, { message: 'hi', mode: 'duel' })).field).toBe('mode');
  });
});

describe('planning a session', () => {
  it('battle needs exactly two distinct known models, as an array or a comma-separated string', () => {
    expect(planArena('battle', body({ models: 'gpt, claude' }), 's').agents.map((a) => a.id)).toEqual([
      'gpt',
      'claude',
    ]);
    expect(refusal(() => planArena('battle', body({}), 's')).field).toBe('models');
    expect(refusal(() => planArena('battle', body({ models: ['gpt'] }), 's')).field).toBe('models');
    expect(refusal(() => planArena('battle', body({ models: ['gpt', 'chatgpt'] }), 's')).message).toMatch(/twice/);
    expect(refusal(() => planArena('battle', body({ models: ['gpt', 'nope'] }), 's')).field).toBe('models[1]');
  });

  it('fight takes 2 to 8 fight-capable models, all eight when omitted', () => {
    expect(planArena('fight', body({}), 's').agents.map((a) => a.id)).toEqual(fightCapableAliases());
    expect(refusal(() => planArena('fight', body({ models: ['gpt'] }), 's')).field).toBe('models');
    expect(refusal(() => planArena('fight', body({ models: ['gpt', 'llama'] }), 's')).field).toBe('models[1]');
  });

  it('fight refuses stream:false with STREAMING_REQUIRED; battle defaults to streaming', () => {
    expect(refusal(() => planArena('fight', body({ stream: false, models: ['gpt', 'claude'] }), 's'))).toMatchObject({
      kind: 'streaming_required',
      field: 'stream',
    });
    expect(planArena('battle', body({ models: ['gpt', 'claude'] }), 's').stream).toBe(true);
  });

  it('agentMode makes four instances of one fight-capable model and ignores models', () => {
    const plan = planArena('fight', body({ agentMode: 'multiple-gemini', models: ['gpt', 'claude'] }), 's');
    expect(plan.agents.map((a) => a.id)).toEqual(['gemini-1', 'gemini-2', 'gemini-3', 'gemini-4']);
    expect(plan.multiInstance).toBe(true);
    for (const bad of ['multiple-llama', 'multiple-', 'multiple-GPT', 'gpt', 'multiple-chatgpt'])
      expect(refusal(() => planArena('fight', body({ agentMode: bad }), 's')).field).toBe('agentMode');
    expect(
      refusal(() => planArena('battle', body({ agentMode: 'multiple-gpt', models: ['gpt', 'claude'] }), 's')).field,
    ).toBe('agentMode');
  });

  it('labels agents neutrally and derives sampling seeds from the session seed', () => {
    const a = planArena('fight', body({ models: ['gpt', 'claude'] }), 'seed-a');
    const b = planArena('fight', body({ models: ['gpt', 'claude'] }), 'seed-b');
    expect(a.agents.map((agent) => agent.label)).toEqual(['Agent 1', 'Agent 2']);
    expect(a.agents[0]!.seed).toBe(planArena('fight', body({ models: ['gpt', 'claude'] }), 'seed-a').agents[0]!.seed);
    expect(a.agents[0]!.seed).not.toBe(b.agents[0]!.seed);
  });

  it('bounds the history every agent reads each round', () => {
    const turns = Array.from({ length: 6 }, () => ({ role: 'user' as const, content: 'x'.repeat(20_000) }));
    expect(refusal(() => planArena('battle', body({ models: ['gpt', 'claude'], messages: turns }), 's')).field).toBe(
      'messages',
    );
  });
});

describe('the legacy chat mode', () => {
  it('becomes a chat-completions request with the history, the message and its image', () => {
    expect(
      singleModelRequest(
        body({
          model: 'claude',
          messages: [{ role: 'system', content: 'Be brief' }],
          image_url: 'https://example.com/a.png',
        }),
      ),
    ).toEqual({
      model: 'claude',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
    });
    expect(refusal(() => singleModelRequest(body({}))).field).toBe('model');
  });
});

describe('image_url: a public http(s) URL, for every agent to fetch', () => {
  const pair = { models: ['gpt', 'claude'] };

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1:8787/api/health',
    'https://localhost./a.png',
    'https://[::127.0.0.1]/a.png',
    'https://[64:ff9b::a9fe:a9fe]/a.png',
    'https://[2002:7f00:1::]/a.png',
    'https://127.0.0.1.nip.io/a.png',
    'http://2130706433/a.png',
    'https://printer.local/a.png',
    'https://user:pw@example.com/a.png',
  ])('%s is refused naming image_url, by battle, fight and the legacy chat mode', (url) => {
    for (const run of [
      () => planArena('battle', body({ ...pair, image_url: url }), 's'),
      () => planArena('fight', body({ ...pair, image_url: url }), 's'),
      () => singleModelRequest(body({ model: 'gpt', image_url: url })),
    ]) {
      const refused = refusal(run);
      expect(refused).toMatchObject({ field: 'image_url', kind: 'invalid_request' });
      expect(refused.message).toMatch(/^image_url: must be a public http\(s\) URL of at most 2048 characters \(.+\)$/);
    }
  });

  it(`the schema bounds it at ${MAX_PUBLIC_URL_CHARS} characters, as every caller URL`, () => {
    const url = (n: number) => `https://example.com/${'a'.repeat(n - 20)}`;
    expect(validate(arenaRequestValidator, { message: 'hi', image_url: url(MAX_PUBLIC_URL_CHARS) })).toBeTruthy();
    expect(
      refusal(() => validate(arenaRequestValidator, { message: 'hi', image_url: url(MAX_PUBLIC_URL_CHARS + 1) })),
    ).toMatchObject({
      field: 'image_url',
    });
  });

  it('a public URL is kept as written', () => {
    for (const url of ['http://example.com/a.png', 'https://93.184.216.34/a.png'])
      expect(planArena('battle', body({ ...pair, image_url: url }), 's').imageUrl).toBe(url);
  });

  it('checkArenaImageHost refuses an image whose name resolves to a non-public address', async () => {
    const asked: string[] = [];
    const lookup: HostLookup = async (name) => {
      asked.push(name);
      if (name === 'rebind.example.com') return ['fd00:ec2::254'];
      throw new Error(`getaddrinfo ENOTFOUND ${name}`);
    };
    const plan = (url?: string) => planArena('battle', body({ ...pair, ...(url ? { image_url: url } : {}) }), 's');
    await expect(checkArenaImageHost(plan('https://rebind.example.com/a.png'), { lookup })).rejects.toMatchObject({
      kind: 'invalid_request',
      field: 'image_url',
      message:
        'image_url: must be a public http(s) URL (the host rebind.example.com resolves to fd00:ec2::254, ' +
        'which is a cloud metadata address)',
    });
    await expect(checkArenaImageHost(plan('https://nowhere.example.com/a.png'), { lookup })).resolves.toBeUndefined();
    await expect(checkArenaImageHost(plan('https://93.184.216.34/a.png'), { lookup })).resolves.toBeUndefined();
    await expect(checkArenaImageHost(plan(), { lookup })).resolves.toBeUndefined();
    expect(asked).toEqual(['rebind.example.com', 'nowhere.example.com']);
  });
});
