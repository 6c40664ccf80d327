import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { noProcessNaming, onLinux } from './support/processes.js';

/**
 * The commands a newcomer runs first, run as they run them (npm, a child process), where their
 * environment is not ready: each ends with one line that says what is wrong and what to do, and
 * a non-zero exit code, never a stack trace.
 */
const ROOT = resolve(import.meta.dirname, '../..');

/** Runs `npm <args>` in the repository with exactly `env` (plus PATH); its exit code and output. */
function npm(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn('npm', args, {
      cwd: ROOT,
      // No update check: it would ask the registry, and its notice is not the command's output.
      env: { PATH: process.env['PATH'] ?? '', npm_config_update_notifier: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, output }));
  });
}

const STACK_FRAME = /^\s+at /m;

describe('npm start on a port that is taken', () => {
  let blocker: Server;
  let dataDir: string;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-port-taken-'));
  });
  afterAll(async () => {
    await new Promise((done) => blocker.close(done));
    rmSync(dataDir, { recursive: true, force: true });
  });

  onLinux(
    'says so in one line naming the port and how to choose another, exits 1, and leaves no child behind',
    async () => {
      const port = (blocker.address() as { port: number }).port;
      const { code, output } = await npm(['start'], { PORT: String(port), GATEWAY_DATA_DIR: dataDir, HOME: dataDir });
      expect(code).toBe(1);
      expect(output).toContain(
        `local runtime: port ${port} is already in use (another npm start?); ` +
          'choose another with PORT=8787 npm start, or PORT=0 for any free port',
      );
      expect(output).not.toMatch(STACK_FRAME);
      expect(output).not.toContain('EADDRINUSE');
      // The database and the stand-ins it had started are stopped, not left holding the folder.
      await noProcessNaming(dataDir);
    },
    120_000,
  );

  test('a PORT that is not a port number is refused the same way, before anything starts', async () => {
    const { code, output } = await npm(['start'], { PORT: '80a', GATEWAY_DATA_DIR: dataDir, HOME: dataDir });
    expect(code).toBe(1);
    expect(output).toContain('local runtime: PORT must be a port number from 0 to 65535 (0: any free port), not "80a"');
    expect(output).not.toMatch(STACK_FRAME);
  }, 60_000);
});

describe('npm run usage:export without AWS settings', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'gateway-no-aws-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  /** A clean environment: a home with no ~/.aws, no AWS variables, and no instance metadata to ask. */
  const cleanEnv = () => ({ HOME: home, AWS_EC2_METADATA_DISABLED: 'true' });
  const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

  test('names AWS_REGION and the flags instead of "Region is missing", and exits 1', async () => {
    const { code, output } = await npm(['run', 'usage:export', '--', '--to', yesterday()], cleanEnv());
    expect(code).toBe(1);
    expect(output).toContain('usage:export: no AWS Region: set AWS_REGION to the Region the stack is deployed in');
    expect(output).toContain('--table-arn, --bucket and --kms-key-arn');
    expect(output).not.toContain('Region is missing');
    expect(output).not.toMatch(STACK_FRAME);
  }, 60_000);

  test('with a Region but no credentials, says how to give them', async () => {
    const { code, output } = await npm(['run', 'usage:export', '--', '--to', yesterday()], {
      ...cleanEnv(),
      AWS_REGION: 'eu-west-1',
    });
    expect(code).toBe(1);
    expect(output).toContain(
      'usage:export: no AWS credentials: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
    expect(output).not.toMatch(STACK_FRAME);
  }, 60_000);

  test('a wrong argument is still named first, with exit code 2', async () => {
    const { code, output } = await npm(['run', 'usage:export', '--', '--from', 'yesterday'], cleanEnv());
    expect(code).toBe(2);
    expect(output).toContain('usage:export: --to: required');
  }, 60_000);
});
