import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText, tool } from 'ai';
import { z } from 'zod';
import { useGateway } from './support/gateway-fixture.js';
import { simulatedReply } from './support/simulators.js';

/** The Vercel AI SDK's OpenAI-compatible provider, unchanged, against `npm start`. */
const local = useGateway({ account: 'vercel', key: { via: 'admin', body: { type: 'secret' } } });
let gatewayProvider: ReturnType<typeof createOpenAICompatible>;

beforeAll(() => {
  gatewayProvider = createOpenAICompatible({
    name: 'gateway',
    baseURL: local.gateway.url('/api/v1'),
    apiKey: local.key,
    includeUsage: true,
  });
});

test('generateText', async () => {
  const result = await generateText({ model: gatewayProvider('claude'), prompt: 'hello vercel' });
  expect(result.text).toMatch(simulatedReply('claude-sonnet-4-5', 'hello vercel'));
  expect(result.finishReason).toBe('stop');
  expect(result.usage.totalTokens).toBe((result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0));
});

test('streamText', async () => {
  const result = streamText({ model: gatewayProvider('gemini'), prompt: 'stream vercel' });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  expect(text).toMatch(simulatedReply('gemini-2.5-pro', 'stream vercel'));
  expect((await result.usage).outputTokens).toBeGreaterThan(0);
});

test('tool calls', async () => {
  const result = await generateText({
    model: gatewayProvider('gpt'),
    prompt: 'weather in two cities [sim:tools=2]',
    tools: {
      get_weather: tool({ description: 'Weather for a city', inputSchema: z.object({ city: z.string() }) }),
    },
  });
  expect(result.finishReason).toBe('tool-calls');
  expect(result.toolCalls).toHaveLength(2);
  expect(result.toolCalls[0]!.input).toEqual({ city: 'city-value' });
});
