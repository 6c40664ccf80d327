import { useGateway } from './support/gateway-fixture.js';
import { RawHttpConnection, sseFrames } from '../support/raw-http.js';

/**
 * What a client receives from a chat stream, read off the socket byte for byte: large, fast
 * streams from every provider's simulator, several sizes, many runs, several streams at once,
 * each connection kept alive for the next stream. Every SSE frame must sit inside the chunked
 * body, `[DONE]` exactly once and last, the answer whole.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'framing',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

const SIZES = [30, 400, 2500];
const RUNS = 3;
const PARALLEL_CONNECTIONS = 3;

async function streamOnce(connection: RawHttpConnection, model: string, words: number): Promise<void> {
  const body = JSON.stringify({
    model,
    stream: true,
    messages: [{ role: 'user', content: `go [sim:words=${words}]` }],
  });
  const response = await connection.request(
    'POST',
    '/api/v1/chat/completions',
    { Authorization: `Bearer ${local.key}`, 'Content-Type': 'application/json' },
    body,
  );
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
  const { data } = sseFrames(response.body.toString('utf8'));
  expect(data.filter((d) => d === '[DONE]')).toHaveLength(1);
  expect(data[data.length - 1]).toBe('[DONE]');
  let text = '';
  for (const frame of data.slice(0, -1)) {
    const chunk = JSON.parse(frame) as { object: string; choices: { delta?: { content?: string } }[] };
    expect(chunk.object).toBe('chat.completion.chunk');
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  expect(text).toBe(Array.from({ length: words }, (_, i) => `word${i + 1}`).join(' '));
}

describe.each(['gpt', 'claude', 'gemini', 'grok', 'deepseek'])('%s streams on the wire', (model) => {
  test('every frame inside the chunked body, [DONE] once, the answer whole, the socket reusable', async () => {
    await Promise.all(
      Array.from({ length: PARALLEL_CONNECTIONS }, async () => {
        const connection = await RawHttpConnection.open(local.gateway.info.baseUrl);
        try {
          for (let run = 0; run < RUNS; run++) for (const words of SIZES) await streamOnce(connection, model, words);
          // One more request on the same socket: bytes left after the last stream would break it.
          const health = await connection.request('GET', '/api/health', {});
          expect(health.status).toBe(200);
        } finally {
          connection.close();
        }
      }),
    );
  });
});
