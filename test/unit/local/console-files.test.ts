import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleFiles } from '../../../local/console-files.js';

/**
 * The console's files over a real server (local/console-files.ts) from a folder made here: a
 * built console beside a secret the folder's parent holds, and a folder with no build at all.
 */
const parent = mkdtempSync(join(tmpdir(), 'console-files-'));
const built = join(parent, 'dist');
const empty = join(parent, 'empty');
mkdirSync(join(built, 'assets'), { recursive: true });
mkdirSync(empty);
writeFileSync(join(built, 'index.html'), '<!doctype html><div id="console-root"></div>');
writeFileSync(join(built, 'assets', 'app-1a2b.js'), 'export {};');
writeFileSync(join(parent, 'secret.txt'), 'the parent folder');

const servers: Server[] = [];
async function serve(folder: string): Promise<string> {
  const files = consoleFiles(folder);
  const server = createServer((req, res) => void files(req, res, new URL(req.url!, 'http://x').pathname));
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  rmSync(parent, { recursive: true, force: true });
});

/** The path sent exactly as written (fetch would normalise it). */
function get(host: string, path: string, method = 'GET') {
  const [hostname, port] = host.split(':');
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const sent = request({ host: hostname, port, path, method }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

test('index.html for / and for page paths; a file by its path; 404 for a missing file', async () => {
  const host = await serve(built);
  for (const path of ['/', '/keys', '/arena/arena-1234', '/deep/page/path']) {
    const page = await get(host, path);
    expect([path, page.status, page.body]).toEqual([path, 200, '<!doctype html><div id="console-root"></div>']);
    expect(page.headers['cache-control']).toBe('no-cache');
  }
  const asset = await get(host, '/assets/app-1a2b.js');
  expect([asset.status, asset.headers['content-type'], asset.body]).toEqual([
    200,
    'text/javascript; charset=utf-8',
    'export {};',
  ]);
  expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  expect((await get(host, '/assets/gone.js')).status).toBe(404);
  expect((await get(host, '/favicon.ico')).status).toBe(404);
});

test('HEAD answers the headers without the body', async () => {
  const host = await serve(built);
  const head = await get(host, '/', 'HEAD');
  expect([head.status, head.body, head.headers['content-length']]).toEqual([200, '', '44']);
});

test("every answer carries the console's security headers", async () => {
  const host = await serve(built);
  for (const path of ['/', '/assets/app-1a2b.js', '/assets/gone.js', '/..%2fsecret.txt']) {
    const answer = await get(host, path);
    expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  }
});

test('nothing outside the folder, however the path is written', async () => {
  const host = await serve(built);
  for (const path of [
    '/..%2fsecret.txt',
    '/%2e%2e%2fsecret.txt',
    '/%2E%2E/secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/..%5csecret.txt',
    '/assets\\..\\..\\secret.txt',
    '/.%2e/secret.txt',
    '/%00secret.txt',
    '/%zz',
    '/.hidden',
  ]) {
    const answer = await get(host, path);
    expect([path, answer.status < 500, answer.body.includes('the parent folder')]).toEqual([path, true, false]);
    expect([path, answer.status]).not.toEqual([path, 200]);
  }
});

test('a folder without a build answers 503 for pages, saying how to build it', async () => {
  const host = await serve(empty);
  const page = await get(host, '/');
  expect(page.status).toBe(503);
  expect(page.body).toContain('npm start builds it');
});
