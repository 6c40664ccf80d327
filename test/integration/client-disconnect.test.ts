import { useGateway } from './support/gateway-fixture.js';
import { bearer, call } from './support/http.js';

/**
 * A client that leaves in the middle of a long streamed answer is routine: the runtime logs
 * one line for it, not a stack trace, and goes on serving.
 */
const local = useGateway({ env: { POWERTOOLS_LOG_LEVEL: 'WARN' } });

test('a client leaving mid-stream costs one log line and no stack trace', async () => {
  const before = local.gateway.output.length;
  const controller = new AbortController();
  const response = await fetch(local.gateway.url('/api/v1/chat/completions'), {
    method: 'POST',
    signal: controller.signal,
    headers: { ...bearer(local.gateway.info.apiKey), 'Content-Type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt',
      stream: true,
      // Paced (20 s in all): however slowly a busy machine runs the client, it leaves mid-answer,
      // never after the whole answer sat in the socket's buffers.
      messages: [{ role: 'user', content: 'long [sim:words=2000] [sim:token_ms=10]' }],
    }),
  });
  const reader = response.body!.getReader();
  await reader.read(); // the answer has begun
  controller.abort();
  await reader.read().catch(() => undefined);

  const logged = () => local.gateway.output.slice(before);
  // However long a busy machine takes to log it: should it never come, the test's timeout ends it.
  while (!/disconnect/i.test(logged())) await new Promise((done) => setTimeout(done, 20));
  await new Promise((done) => setTimeout(done, 200)); // anything logged after the first line
  const lines = logged().split('\n').filter(Boolean);
  expect(lines).toEqual([expect.stringMatching(/client disconnected/)]);

  const next = await call(local.gateway.url('/api/v1/chat/completions'), {
    headers: bearer(local.gateway.info.apiKey),
    body: { model: 'gpt', messages: [{ role: 'user', content: 'still there?' }] },
  });
  expect(next.status).toBe(200);
}, 60_000);
