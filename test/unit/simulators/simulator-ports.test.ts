import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulators } from '../../../local/simulators/simulator-registry.js';

/**
 * The simulators keep their ports across restarts over the same data folder
 * (simulator-ports.ts): runtime.json's URLs and the links the fakes handed out stay valid.
 * A port taken meanwhile gives way to a free one, with a warning; without a folder, free
 * ports and nothing recorded.
 */
let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'simulator-ports-'));
});
afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dataDir, { recursive: true, force: true });
});

async function urlsOnce(): Promise<Record<string, string>> {
  const simulated = await startSimulators({}, { dataDir });
  await simulated.close();
  return simulated.urls as Record<string, string>;
}

test('a second start over the same folder gets the same ports', async () => {
  const first = await urlsOnce();
  expect(Object.keys(first)).toEqual(expect.arrayContaining(['openai', 'exa', 'minimax', 'fashn']));
  const recorded = JSON.parse(readFileSync(join(dataDir, 'simulators', 'ports.json'), 'utf8'));
  expect(recorded['minimax']).toBe(Number(new URL(first['minimax']!).port));
  expect(await urlsOnce()).toEqual(first);
});

test("ports to keep are chosen below the system's ephemeral range, where outgoing connections never take them", async () => {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const ports = Object.values(await urlsOnce()).map((url) => Number(new URL(url).port));
  expect(ports.length).toBeGreaterThan(5);
  for (const port of ports) expect([port, port >= 10_000 && port < low]).toEqual([port, true]);
  // Without a folder nothing is kept, and the system picks (its ephemeral range).
  const simulated = await startSimulators({});
  await simulated.close();
  expect(Number(new URL(simulated.urls['openai']!).port)).toBeGreaterThanOrEqual(low);
});

test('a port taken meanwhile gives way to a free one, with a warning', async () => {
  const first = await urlsOnce();
  const taken = Number(new URL(first['fashn']!).port);
  const squatter: Server = createServer();
  await new Promise<void>((done) => squatter.listen(taken, '127.0.0.1', () => done()));
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    const second = await urlsOnce();
    expect(second['fashn']).not.toBe(first['fashn']);
    expect(second['openai']).toBe(first['openai']);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`port ${taken} is taken`));
    // The new port is the one asked for next time.
    expect(await urlsOnce()).toEqual(second);
  } finally {
    await new Promise((done) => squatter.close(done));
  }
});

test('without a data folder nothing is recorded', async () => {
  const simulated = await startSimulators({});
  await simulated.close();
  expect(existsSync(join(dataDir, 'simulators'))).toBe(false);
});
