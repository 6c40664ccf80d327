import { anthropicSimulator } from '../../../local/simulators/anthropic.js';
import { geminiSimulator } from '../../../local/simulators/gemini.js';
import { startSimulator, type RunningSimulator, type SimulatorDefinition } from '../../../local/simulators/harness.js';
import { openAiSimulator } from '../../../local/simulators/openai.js';
import { openRouterSimulator } from '../../../local/simulators/openrouter.js';
import { xaiSimulator } from '../../../local/simulators/xai.js';

/**
 * Arena prompts through each of the five wire formats over loopback: sampled requests
 * (temperature, seed) name a take, forced votes pick a ballot letter by the draw, and
 * `[sim:bad_vote]` makes a vote unusable for the models it names.
 */

type Json = Record<string, any>;

interface Ask {
  readonly text: string;
  readonly temperature?: number;
  readonly seed?: number;
  /** Offer `cast_vote` and force a call: to it by name, or to any tool. */
  readonly vote?: 'named' | 'any';
}

interface Answer {
  readonly text: string;
  readonly calls: readonly { readonly name: string; readonly args: Json }[];
  readonly finish: string;
}

interface Wire {
  readonly name: string;
  readonly definition: SimulatorDefinition;
  readonly model: string;
  readonly seeds: boolean;
  /** The finish reason of a plain-text answer. */
  readonly textFinish: string;
  request(ask: Ask): { path: string; headers: Record<string, string>; body: Json };
  read(body: Json): Answer;
}

const LETTERS = ['A', 'B', 'C'];
const VOTE_PARAMETERS = {
  type: 'object',
  properties: { choice: { type: 'string', enum: LETTERS } },
  required: ['choice'],
};

const openAiCompatible = (name: string, definition: SimulatorDefinition, prefix: string, model: string): Wire => ({
  name,
  definition,
  model,
  seeds: true,
  textFinish: 'stop',
  request: ({ text, temperature, seed, vote }) => ({
    path: `${prefix}/chat/completions`,
    headers: { authorization: 'Bearer sk-sim-test' },
    body: {
      model,
      messages: [{ role: 'user', content: text }],
      ...(temperature === undefined ? {} : { temperature }),
      ...(seed === undefined ? {} : { seed }),
      ...(vote
        ? {
            tools: [{ type: 'function', function: { name: 'cast_vote', parameters: VOTE_PARAMETERS } }],
            tool_choice: vote === 'any' ? 'required' : { type: 'function', function: { name: 'cast_vote' } },
          }
        : {}),
    },
  }),
  read: (body) => {
    const choice = body['choices'][0];
    return {
      text: choice.message.content ?? '',
      calls: (choice.message.tool_calls ?? []).map((call: Json) => ({
        name: call['function'].name,
        args: JSON.parse(call['function'].arguments),
      })),
      finish: choice.finish_reason,
    };
  },
});

const anthropic: Wire = {
  name: 'anthropic',
  definition: anthropicSimulator,
  model: 'claude-sonnet-4-5',
  seeds: false,
  textFinish: 'end_turn',
  request: ({ text, temperature, vote }) => ({
    path: '/v1/messages',
    headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
    body: {
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      messages: [{ role: 'user', content: text }],
      ...(temperature === undefined ? {} : { temperature }),
      ...(vote
        ? {
            tools: [{ name: 'cast_vote', input_schema: VOTE_PARAMETERS }],
            tool_choice: vote === 'any' ? { type: 'any' } : { type: 'tool', name: 'cast_vote' },
          }
        : {}),
    },
  }),
  read: (body) => ({
    text: body['content']
      .filter((b: Json) => b['type'] === 'text')
      .map((b: Json) => b['text'])
      .join(''),
    calls: body['content']
      .filter((b: Json) => b['type'] === 'tool_use')
      .map((b: Json) => ({ name: b['name'], args: b['input'] })),
    finish: body['stop_reason'],
  }),
};

const gemini: Wire = {
  name: 'gemini',
  definition: geminiSimulator,
  model: 'gemini-2.5-pro',
  seeds: true,
  textFinish: 'STOP',
  request: ({ text, temperature, seed, vote }) => ({
    path: '/v1beta/models/gemini-2.5-pro:generateContent',
    headers: { 'x-goog-api-key': 'AIza-test-key' },
    body: {
      contents: [{ role: 'user', parts: [{ text }] }],
      ...(temperature === undefined && seed === undefined
        ? {}
        : {
            generationConfig: {
              ...(temperature === undefined ? {} : { temperature }),
              ...(seed === undefined ? {} : { seed }),
            },
          }),
      ...(vote
        ? {
            tools: [
              {
                functionDeclarations: [
                  {
                    name: 'cast_vote',
                    parameters: {
                      type: 'OBJECT',
                      properties: { choice: { type: 'STRING', format: 'enum', enum: LETTERS } },
                      required: ['choice'],
                    },
                  },
                ],
              },
            ],
            toolConfig: {
              functionCallingConfig: {
                mode: 'ANY',
                ...(vote === 'named' ? { allowedFunctionNames: ['cast_vote'] } : {}),
              },
            },
          }
        : {}),
    },
  }),
  read: (body) => {
    const candidate = body['candidates'][0];
    const parts: Json[] = candidate.content.parts;
    return {
      text: parts.map((p) => p['text'] ?? '').join(''),
      calls: parts
        .filter((p) => p['functionCall'])
        .map((p) => ({ name: p['functionCall'].name, args: p['functionCall'].args })),
      finish: candidate.finishReason,
    };
  },
};

const WIRES: readonly Wire[] = [
  openAiCompatible('openai', openAiSimulator, '/v1', 'gpt-5'),
  openAiCompatible('xai', xaiSimulator, '/v1', 'grok-4'),
  openAiCompatible('openrouter', openRouterSimulator, '/api/v1', 'openai/gpt-5'),
  anthropic,
  gemini,
];

/** A voter's prompt: the question, then the answers under shuffled letters. */
const ballot = (order: readonly string[], directive = ''): string =>
  [
    `${directive}Which answer is best? ${'Consider every detail of the question carefully. '.repeat(40)}`,
    ...order.map((answer, i) => `${LETTERS[i]}: ${answer}`),
  ].join('\n');

const ORDERS = [
  ['red', 'green', 'blue'],
  ['red', 'blue', 'green'],
  ['green', 'red', 'blue'],
  ['green', 'blue', 'red'],
  ['blue', 'red', 'green'],
  ['blue', 'green', 'red'],
  ['sky', 'sea', 'sand'],
  ['sand', 'sky', 'sea'],
];

describe.each(WIRES)('the $name simulator', (wire) => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator(wire.definition, 0);
  });
  afterAll(() => sim.close());

  async function ask(question: Ask): Promise<Answer> {
    const { path, headers, body } = wire.request(question);
    const response = await fetch(sim.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return wire.read((await response.json()) as Json);
  }

  const take = (answer: Answer): string | undefined => /\(take ([0-9a-f]{6})\)/.exec(answer.text)?.[1];

  test('without temperature the reply is the plain default one', async () => {
    const answer = await ask({ text: 'What is 2+2?' });
    expect(answer.text).toBe(`Simulated reply from ${wire.model} — you said: What is 2+2?`);
  });

  test('a temperature names a take that the temperature and seed change and a replay keeps', async () => {
    const answer = await ask({ text: 'What is 2+2?', temperature: 0.7, seed: 1 });
    expect(answer.text).toMatch(
      new RegExp(`^Simulated reply from ${wire.model} \\(take [0-9a-f]{6}\\) — you said: What is 2\\+2\\?$`),
    );
    expect(take(await ask({ text: 'What is 2+2?', temperature: 0.7, seed: 1 }))).toBe(take(answer));
    expect(take(await ask({ text: 'What is 2+2?', temperature: 0.3, seed: 1 }))).not.toBe(take(answer));
    expect(take(await ask({ text: 'What is 3+3?', temperature: 0.7, seed: 1 }))).not.toBe(take(answer));
    if (wire.seeds) expect(take(await ask({ text: 'What is 2+2?', temperature: 0.7, seed: 2 }))).not.toBe(take(answer));
  });

  test('directives keep precedence over the take', async () => {
    expect((await ask({ text: '[sim:reply=Four]', temperature: 0.7 })).text).toBe('Four');
    expect((await ask({ text: '[sim:words=3]', temperature: 0.7 })).text).toBe('word1 word2 word3');
  });

  test('a forced vote picks a letter by its ballot, the same one on replay', async () => {
    const picks: string[] = [];
    for (const order of ORDERS) {
      const answer = await ask({ text: ballot(order), temperature: 0, vote: 'named' });
      expect(answer.calls).toHaveLength(1);
      expect(answer.calls[0]!.name).toBe('cast_vote');
      const choice = answer.calls[0]!.args['choice'] as string;
      expect(LETTERS).toContain(choice);
      const replay = await ask({ text: ballot(order), temperature: 0, vote: 'named' });
      expect(replay.calls[0]!.args['choice']).toBe(choice);
      picks.push(choice);
    }
    expect(new Set(picks).size).toBeGreaterThan(1);
  });

  test('without temperature a forced vote takes the first letter', async () => {
    for (const order of ORDERS.slice(0, 3)) {
      const answer = await ask({ text: ballot(order), vote: 'named' });
      expect(answer.calls[0]!.args).toEqual({ choice: 'A' });
    }
  });

  test('[sim:bad_vote] answers a forced vote in text without a tool call, deep in a long message', async () => {
    const text = ballot(ORDERS[0]!, 'Intro. '.repeat(500) + '[sim:bad_vote] ');
    for (const vote of ['named', 'any'] as const) {
      const answer = await ask({ text, temperature: 0, vote });
      expect(answer).toEqual({
        text: 'I would rather not pick one of these answers.',
        calls: [],
        finish: wire.textFinish,
      });
    }
  });

  test('[sim:bad_vote=MODEL] spoils only the votes of the models it names', async () => {
    for (const names of [wire.model, `some-other-model,${wire.model}`]) {
      const answer = await ask({ text: ballot(ORDERS[1]!, `[sim:bad_vote=${names}] `), temperature: 0, vote: 'named' });
      expect(answer.calls).toEqual([]);
      expect(answer.text).toBe('I would rather not pick one of these answers.');
    }
    const other = await ask({
      text: ballot(ORDERS[1]!, '[sim:bad_vote=some-other-model] '),
      temperature: 0,
      vote: 'named',
    });
    expect(other.calls).toHaveLength(1);
    expect(other.calls[0]!.name).toBe('cast_vote');
  });

  test('[sim:bad_vote] leaves a request that forces no tool call alone', async () => {
    const answer = await ask({ text: '[sim:bad_vote] Hello' });
    expect(answer.text).toBe(`Simulated reply from ${wire.model} — you said: Hello`);
  });
});
