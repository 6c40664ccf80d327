import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** runtime.json, as `npm start` writes it. */
export interface RuntimeInfo {
  baseUrl: string;
  apiKey: string;
  adminToken: string;
  dashboard: { email: string; password: string };
  simulators: Record<string, string>;
}

/** local-aws.json: the stand-ins' endpoints, for tests that inspect stored state. */
export interface LocalAws {
  region: string;
  dynamodb: string;
  secretsManager: string;
  cognito: string;
  tables: Record<'identity' | 'usage' | 'cache' | 'jobs', string>;
}

const ROOT = resolve(import.meta.dirname, '..');
const READY_BANNER = 'AI gateway is running';
const START_TIMEOUT_MS = 30_000;

/**
 * The real `npm start` in a child process, as a developer runs it,
 * with its own data folder: what the integration tests and the benchmarks run against.
 * `restart()` keeps the folder and the port, as a developer's restart does.
 */
export class LocalGateway {
  private child?: ChildProcess;

  /** The runtime process, for CPU and memory readings. */
  get pid(): number | undefined {
    return this.child?.pid;
  }
  /** Everything the runtime printed (for the secret-canary checks). */
  output = '';
  info!: RuntimeInfo;
  aws!: LocalAws;

  private constructor(
    readonly dataDir: string,
    private readonly env: Record<string, string>,
  ) {}

  /** `env` overrides the child's environment (the default logs at DEBUG, for the canary tests). */
  static async start(env: Record<string, string> = {}): Promise<LocalGateway> {
    const gateway = new LocalGateway(mkdtempSync(join(tmpdir(), 'gateway-')), env);
    await gateway.boot();
    return gateway;
  }

  /** Same folder and same port, as a developer's restart: origins and URLs stay valid. */
  async restart(): Promise<void> {
    await this.stop();
    await this.boot(new URL(this.info.baseUrl).port);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  url(path: string): string {
    return `${this.info.baseUrl}${path}`;
  }

  private async boot(port = '0'): Promise<void> {
    const child = spawn(process.execPath, startArguments(), {
      cwd: ROOT,
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'DEBUG', ...this.env, PORT: port, GATEWAY_DATA_DIR: this.dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`runtime not ready in time:\n${this.output}`)), START_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        this.output += chunk.toString();
        if (this.output.includes(READY_BANNER)) {
          clearTimeout(timer);
          ready();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`runtime exited with ${code}:\n${this.output}`));
      });
    });
    // The listener above keeps collecting: later output matters to the canary checks.
    this.info = JSON.parse(readFileSync(join(this.dataDir, 'runtime.json'), 'utf8')) as RuntimeInfo;
    this.aws = JSON.parse(readFileSync(join(this.dataDir, 'local-aws.json'), 'utf8')) as LocalAws;
  }
}

/**
 * The arguments of `npm start`'s command line (package.json), for this Node: the harness runs
 * exactly what a developer runs, V8 heap settings included.
 */
function startArguments(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [program, ...args] = pkg.scripts.start.trim().split(/\s+/);
  if (program !== 'node') throw new Error(`package.json "start" must run node directly; it runs: ${pkg.scripts.start}`);
  return args;
}
