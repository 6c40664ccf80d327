import OpenAI from 'openai';
import type { Moderation } from 'openai/resources/moderations';
import { startSimulator, type RunningSimulator } from '../../local/simulators/harness.js';
import { MODERATION_CATEGORIES } from '../../local/simulators/openai-moderations.js';
import { openAiSimulator } from '../../local/simulators/openai.js';

/**
 * The OpenAI simulator's moderation endpoint read only by the official `openai` SDK
 * (`moderations.create`), the shape the gateway's OpenAI moderation engine reads
 * (lambdas/chat/guardrails/moderation.ts): one result per input string, every category in
 * each map, flagging steered by `[sim:flag…]`, errors as the SDK's typed errors.
 */

let sim: RunningSimulator;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSimulator(openAiSimulator, 0);
  client = new OpenAI({ apiKey: 'sk-contract', baseURL: `${sim.url}/v1`, maxRetries: 0 });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.requests.length = 0;
});

const on = (result: Moderation): string[] =>
  Object.entries(result.categories)
    .filter(([, value]) => value === true)
    .map(([name]) => name);

describe('moderations.create', () => {
  it('answers one result per string, with every category, the default model and the request id', async () => {
    const response = await client.moderations.create({ input: ['A calm walk in the park.', 'Nice weather.'] });
    expect(response.id).toMatch(/^modr-/);
    expect(response.model).toBe('omni-moderation-latest');
    expect(response._request_id).toMatch(/^req_/);
    expect(response.results).toHaveLength(2);
    for (const result of response.results) {
      expect(result.flagged).toBe(false);
      expect(Object.keys(result.categories).sort()).toEqual([...MODERATION_CATEGORIES].sort());
      expect(Object.keys(result.category_scores).sort()).toEqual([...MODERATION_CATEGORIES].sort());
      expect(Object.values(result.categories).every((value) => value === false)).toBe(true);
      expect(Object.values(result.category_scores).every((score) => score > 0 && score < 0.001)).toBe(true);
      expect(Object.values(result.category_applied_input_types).every((types) => types.join() === 'text')).toBe(true);
    }
    expect(sim.requests[0]!.body).toEqual({ input: ['A calm walk in the park.', 'Nice weather.'] });
  });

  it('flags what the directive names, in that input only, with high scores', async () => {
    const { results } = await client.moderations.create({
      model: 'omni-moderation-latest',
      input: [
        'hello',
        'I will hurt you [sim:flag=harassment/threatening,violence]',
        'bad [sim:flag]',
        'x [sim:flag=nope]',
      ],
    });
    expect(results.map((result) => result.flagged)).toEqual([false, true, true, true]);
    expect(on(results[1]!)).toEqual(['harassment/threatening', 'violence']);
    expect(results[1]!.category_scores['harassment/threatening']).toBeGreaterThanOrEqual(0.9);
    expect(results[1]!.category_scores.violence).toBeGreaterThanOrEqual(0.9);
    expect(results[1]!.category_scores.hate).toBeLessThan(0.001);
    // A bare directive, or one naming no category, means violence.
    expect(on(results[2]!)).toEqual(['violence']);
    expect(on(results[3]!)).toEqual(['violence']);
  });

  it('scores the same input the same every time', async () => {
    const input = 'the same words [sim:flag=hate]';
    const first = await client.moderations.create({ input });
    const second = await client.moderations.create({ input });
    expect(second.results).toEqual(first.results);
  });

  it('judges multi-modal parts together: one result, images applied to the categories that read them', async () => {
    const { results } = await client.moderations.create({
      input: [
        { type: 'text', text: 'What is shown here? [sim:flag=self-harm]' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    });
    expect(results).toHaveLength(1);
    expect(on(results[0]!)).toEqual(['self-harm']);
    expect(results[0]!.category_applied_input_types['self-harm']).toEqual(['text', 'image']);
    expect(results[0]!.category_applied_input_types.hate).toEqual(['text']);
  });

  it('answers the legacy text models without the illicit categories', async () => {
    const { model, results } = await client.moderations.create({ model: 'text-moderation-stable', input: 'hi' });
    expect(model).toBe('text-moderation-stable');
    expect(results[0]!.categories.illicit).toBeNull();
    expect(results[0]!.categories['illicit/violent']).toBeNull();
    expect(results[0]!.categories.hate).toBe(false);
  });
});

describe('errors', () => {
  it('an unknown model is a NotFoundError, an empty or unreadable input a BadRequestError', async () => {
    await expect(client.moderations.create({ model: 'gpt-nope', input: 'hi' })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    for (const input of [[], [{ type: 'audio' }]] as unknown as string[][]) {
      const error = await client.moderations.create({ input }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error).toMatchObject({ status: 400, param: 'input', type: 'invalid_request_error' });
    }
  });

  it('a bad key is an AuthenticationError', async () => {
    const bad = new OpenAI({ apiKey: 'bad-key', baseURL: `${sim.url}/v1`, maxRetries: 0 });
    await expect(bad.moderations.create({ input: 'hi' })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('takes injected faults like the chat route: a 429 is a RateLimitError', async () => {
    await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'status:429' }) });
    const error = await client.moderations.create({ input: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
  });
});
