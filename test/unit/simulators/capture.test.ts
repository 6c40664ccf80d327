import { MAX_BODY_BYTES, MAX_CAPTURED, MAX_CAPTURED_BODY_BYTES } from '../../../local/simulators/capture.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { openAiSimulator } from '../../../local/simulators/openai.js';

/**
 * The request capture behind `GET /__sim/requests` is bounded in count and in body bytes, so a
 * long load cannot grow the services process without limit; the latest requests are kept.
 */
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(openAiSimulator);
});
afterAll(() => sim.close());
beforeEach(() => fetch(`${sim.url}/__sim/requests`, { method: 'DELETE' }).then((r) => r.text()));

const send = (body: string) => fetch(`${sim.url}/v1/nowhere`, { method: 'POST', body }).then((r) => r.text());
const bodyOf = (n: number, bytes: number) => JSON.stringify({ n, padding: 'x'.repeat(bytes) });
const captured = async () =>
  ((await (await fetch(`${sim.url}/__sim/requests`)).json()) as { requests: { body: { n?: number } }[] }).requests;

test(`keeps the latest ${MAX_CAPTURED} requests`, async () => {
  for (let n = 0; n < MAX_CAPTURED + 50; n += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, i) => send(JSON.stringify({ n: n + i }))));
  }
  const requests = await captured();
  expect(requests).toHaveLength(MAX_CAPTURED);
  expect(Math.min(...requests.map((r) => r.body.n!))).toBe(50);
}, 30_000);

test('keeps the latest bodies within the byte budget, dropping the oldest', async () => {
  const size = MAX_BODY_BYTES - 1024;
  const count = Math.ceil(MAX_CAPTURED_BODY_BYTES / size) + 4;
  for (let n = 0; n < count; n++) await send(bodyOf(n, size));
  const numbers = (await captured()).map((r) => r.body.n);
  expect(numbers.length).toBeLessThanOrEqual(Math.floor(MAX_CAPTURED_BODY_BYTES / size));
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => count - numbers.length + i));
}, 30_000);

test('keeps a body over the per-body limit as a summary', async () => {
  await send(bodyOf(1, MAX_BODY_BYTES + 1));
  const [request] = await captured();
  expect(request!.body).toEqual({ omitted: expect.stringMatching(/over the \d+-byte capture limit/) });
});
