import { ArenaError } from '../../../lambdas/arena/arena-errors.js';
import {
  arenaRequestValidator,
  legacyChatRequestValidator,
  planArena,
  singleModelRequest,
  type ArenaRequestBody,
} from '../../../lambdas/arena/arena-request.js';
import { fightCapableAliases } from '../../../lambdas/catalog/index.js';
import { HttpError } from '../../../lambdas/http/errors.js';
import { validate } from '../../../lambdas/http/validation.js';

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
