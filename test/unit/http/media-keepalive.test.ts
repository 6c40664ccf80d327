import { jsonKeptAlive } from '../../../lambdas/media/media-keepalive.js';

/** A pending JSON answer on a stream: spaces while it is pending, then the JSON, one document. */
async function collect(body: AsyncIterable<Uint8Array>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += Buffer.from(chunk).toString('utf8');
  return text;
}

test('spaces flow while the answer is pending, then the JSON: the whole body parses', async () => {
  const answer = new Promise((resolve) => setTimeout(() => resolve({ success: true, data: { status: 2 } }), 120));
  const text = await collect(jsonKeptAlive(answer, 20));
  expect(text).toMatch(/^ +\{/);
  expect(JSON.parse(text)).toEqual({ success: true, data: { status: 2 } });
});

test('an answer ready at once has no leading space', async () => {
  expect(await collect(jsonKeptAlive(Promise.resolve({ ok: 1 }), 1_000))).toBe('{"ok":1}');
});

test('a failure of the answer ends the body with that error', async () => {
  await expect(collect(jsonKeptAlive(Promise.reject(new Error('lost')), 10))).rejects.toThrow('lost');
});
