import { toAnthropicBody } from '../../../lambdas/providers/anthropic/anthropic-request.js';
import { toGenerateContentRequest } from '../../../lambdas/providers/gemini/gemini-request.js';
import type { ChatRequest } from '../../../lambdas/providers/chat-types.js';
import { anthropicSimulator } from '../../../local/simulators/anthropic.js';
import { geminiSimulator } from '../../../local/simulators/gemini.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { openAiSimulator } from '../../../local/simulators/openai.js';

/**
 * Two user messages in a row (an arena's view of the peers, then the caller's message) read the
 * same through every wire format: Anthropic and Gemini get them merged into one turn by the
 * gateway's adapters, and the simulated model still answers the last message, takes its
 * directives from it alone, and searches for it, as it does through OpenAI's format.
 */
type Json = Record<string, any>;

const VIEW = 'Answers already given in this round:\n\nAgent 1:\n<<<\nSimulated reply (take 123abc) [sim:words=2]\n>>>';

const request = (question: string, imageUrl?: string): ChatRequest => ({
  model: 'm',
  temperature: 0.7,
  messages: [
    { role: 'system', content: 'You are Agent 2.' },
    { role: 'user', content: VIEW },
    imageUrl
      ? {
          role: 'user',
          content: [
            { type: 'text', text: question },
            { type: 'image_url', image_url: { url: imageUrl } },
          ],
        }
      : { role: 'user', content: question },
  ],
});

interface Wire {
  readonly name: string;
  readonly model: string;
  start(): Promise<RunningSimulator>;
  send(sim: RunningSimulator, request: ChatRequest): Promise<string>;
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Json> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

const WIRES: readonly Wire[] = [
  {
    name: 'openai',
    model: 'gpt-5',
    start: () => startSimulator(openAiSimulator, 0),
    send: async (sim, req) => {
      const body = await post(
        `${sim.url}/v1/chat/completions`,
        { authorization: 'Bearer sk-sim-test' },
        {
          ...req,
          model: 'gpt-5',
        },
      );
      return body['choices'][0].message.content as string;
    },
  },
  {
    name: 'anthropic',
    model: 'claude-sonnet-4-5',
    start: () => startSimulator(anthropicSimulator, 0),
    send: async (sim, req) => {
      const wire = toAnthropicBody(req, 'claude-sonnet-4-5', false);
      expect(wire.messages).toHaveLength(1);
      const body = await post(
        `${sim.url}/v1/messages`,
        { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
        wire,
      );
      return (body['content'] as Json[]).map((b) => b['text'] ?? '').join('');
    },
  },
  {
    name: 'gemini',
    model: 'gemini-2.5-pro',
    start: () => startSimulator(geminiSimulator, 0),
    send: async (sim, req) => {
      const wire = toGenerateContentRequest(req);
      expect(wire.contents).toHaveLength(1);
      const body = await post(
        `${sim.url}/v1beta/models/gemini-2.5-pro:generateContent`,
        { 'x-goog-api-key': 'AIza-test-key' },
        wire,
      );
      return (body['candidates'][0].content.parts as Json[]).map((p) => p['text'] ?? '').join('');
    },
  },
];

describe.each(WIRES)('through the $name format', (wire) => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await wire.start();
  });
  afterAll(() => sim.close());

  test("the model answers the last user message, not the one before it, nor that one's directives", async () => {
    const answer = await wire.send(sim, request('What is 2+2?'));
    expect(answer).toMatch(
      new RegExp(`^Simulated reply from ${wire.model} \\(take [0-9a-f]{6}\\) — you said: What is 2\\+2\\?$`),
    );
  });

  test('the directives of the last user message apply', async () => {
    expect(await wire.send(sim, request('Name three. [sim:words=3]'))).toBe('word1 word2 word3');
  });

  test('an image in the last message is seen with it', async () => {
    const answer = await wire.send(sim, request('Look.', 'data:image/png;base64,iVBORw0KGgo='));
    expect(answer).toMatch(/you said: Look\. \(I see 1 image\)$/);
  });
});
