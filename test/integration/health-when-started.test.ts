import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { LocalGateway } from '../../local/child-runtime.js';

/**
 * Tooling waits for `/api/health` and then reads `runtime.json`: the runtime must not answer
 * healthy before that file exists. While it starts (the first account is provisioned through
 * its own admin API, so it listens early), health answers 503 with status `starting`.
 */
/** Starts the runtime on a free port while probing its health; the answers, and when runtime.json was written. */
async function startProbed() {
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
  return { gateway, answers, written: statSync(join(gateway.dataDir, 'runtime.json')).mtimeMs };
}

/** Starts tried at most, for one whose probe caught the runtime listening before it had finished starting. */
const STARTS = 3;

test('/api/health answers healthy only once runtime.json is written', async () => {
  for (let start = 1; ; start++) {
    const { gateway, answers, written } = await startProbed();
    try {
      // Answered before the file was written: the runtime was still starting.
      const early = answers.filter((answer) => answer.at < written);
      for (const answer of early) {
        expect(answer.status).toBe(503);
        expect(JSON.parse(answer.body)).toMatchObject({ success: false, data: { status: 'starting' } });
      }
      const health = await fetch(gateway.url('/api/health'));
      expect(health.status).toBe(200);
      expect(((await health.json()) as { data: { status: string } }).data.status).toBe('healthy');
      // The window between listening and runtime.json is short; on a busy machine a probe may
      // miss it, so another start is tried (a count of starts, not a time bound).
      if (early.length > 0) return;
      if (start >= STARTS) throw new Error(`no probe answered while the runtime started, in ${STARTS} starts`);
    } finally {
      await gateway.dispose();
    }
  }
}, 120_000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}
