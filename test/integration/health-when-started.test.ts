import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { LocalGateway } from '../../local/child-runtime.js';

/**
 * Tooling waits for `/api/health` and then reads `runtime.json`: the runtime must not answer
 * healthy before that file exists. While it starts (the first account is provisioned through
 * its own admin API, so it listens early), health answers 503 with status `starting`.
 */
test('/api/health answers healthy only once runtime.json is written', async () => {
  const port = await freePort();
  const answers: { status: number; body: string; at: number }[] = [];
  let starting = true;
  const probe = (async () => {
    while (starting) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/health`);
        answers.push({ status: response.status, body: await response.text(), at: Date.now() });
      } catch {
        await new Promise((done) => setTimeout(done, 2)); // not listening yet
      }
    }
  })();
  const gateway = await LocalGateway.start({ POWERTOOLS_LOG_LEVEL: 'WARN' }, { port });
  starting = false;
  await probe;
  try {
    const written = statSync(join(gateway.dataDir, 'runtime.json')).mtimeMs;
    const early = answers.filter((answer) => answer.at < written);
    // The probe saw the runtime listening before it had finished starting.
    expect(early.length).toBeGreaterThan(0);
    for (const answer of early) {
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body)).toMatchObject({ success: false, data: { status: 'starting' } });
    }
    const health = await fetch(gateway.url('/api/health'));
    expect(health.status).toBe(200);
    expect(((await health.json()) as { data: { status: string } }).data.status).toBe('healthy');
  } finally {
    await gateway.dispose();
  }
}, 60_000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}
