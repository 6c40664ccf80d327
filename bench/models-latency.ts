import { Agent, request } from 'node:http';
import { LocalGateway } from '../local/child-runtime.js';
import { fmtMs, percentile } from './stats.js';

const WARMUP = 300;
const SAMPLES = 3000;

/**
 * p50/p99 of an authenticated GET /api/v1/models against `npm start` over loopback, one
 * request at a time on a keep-alive connection. Every request pays authentication, the
 * rate-limit counter and the per-request log line, as in production.
 */
export async function benchModelsLatency(): Promise<void> {
  const gateway = await LocalGateway.start({ POWERTOOLS_LOG_LEVEL: 'INFO' });
  try {
    const key = await benchKey(gateway);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL(gateway.url('/api/v1/models'));
    for (let i = 0; i < WARMUP; i++) await get(url, key, agent);
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const start = process.hrtime.bigint();
      await get(url, key, agent);
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    agent.destroy();
    console.log(`\nAuthenticated GET /api/v1/models over loopback (${SAMPLES} sequential requests, keep-alive)\n`);
    console.log(
      `p50 ${fmtMs(percentile(samples, 50))}   p99 ${fmtMs(percentile(samples, 99))}   max ${fmtMs(Math.max(...samples))}`,
    );
  } finally {
    gateway.output = '';
    await gateway.dispose();
  }
}

async function benchKey(gateway: LocalGateway): Promise<string> {
  const admin = { Authorization: `Bearer ${gateway.info.adminToken}`, 'Content-Type': 'application/json' };
  const account = await fetch(gateway.url('/api/admin/v1/accounts'), {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ email: 'bench@example.com', name: 'Bench' }),
  }).then((r) => r.json() as Promise<{ data: { accountId: string } }>);
  const key = await fetch(gateway.url('/api/admin/v1/keys'), {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ accountId: account.data.accountId, type: 'secret', rateLimit: 10000 }),
  }).then((r) => r.json() as Promise<{ data: { key: string } }>);
  return key.data.key;
}

function get(url: URL, key: string, agent: Agent): Promise<void> {
  return new Promise((done, fail) => {
    const req = request(url, { agent, headers: { Authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) fail(new Error(`status ${res.statusCode}`));
      res.resume();
      res.on('end', () => done());
    });
    req.on('error', fail);
    req.end();
  });
}
