import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** runtime.json, as `npm start` writes it. */
export interface RuntimeInfo {
  baseUrl: string;
  /** Where the runtime serves the console (`baseUrl` + `/`). */
  consoleUrl: string;
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
  /** The SQS stand-in (the usage retry queue and the aggregator's failure queue). */
  sqs: string;
  /** The STS stand-in, which issues the tenant sessions. */
  sts: string;
  tables: Record<'identity' | 'usage' | 'cache' | 'jobs', string>;
}

const ROOT = resolve(import.meta.dirname, '..');
const READY_BANNER = 'AI gateway is running';
/** How the banner's lines that print the first key begin. */
const BANNER_KEY_LINES = ['  API key ', '  export GATEWAY_API_KEY=', '  curl -H '];
const START_TIMEOUT_MS = 30_000;

export interface LaunchOptions {
  /**
   * Run `npm start` itself rather than its command line on this Node: npm then sits between
   * the test and the runtime, as it does in a developer's terminal (for the signal tests).
   */
  readonly viaNpm?: boolean;
  /** A port chosen beforehand (default: a free one), for tests that watch the start itself. */
  readonly port?: number;
}

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

  /**
   * What the runtime printed but the banner's lines that show its first key on purpose
   * (local/start.ts): the logs, which must hold no secret.
   */
  logs(): string {
    return this.output
      .split('\n')
      .filter((line) => !BANNER_KEY_LINES.some((start) => line.startsWith(start)))
      .join('\n');
  }
  info!: RuntimeInfo;
  aws!: LocalAws;

  private constructor(
    readonly dataDir: string,
    private readonly env: Record<string, string>,
    private readonly launch: LaunchOptions,
  ) {}

  /** `env` overrides the child's environment (the default logs at DEBUG, for the canary tests). */
  static async start(env: Record<string, string> = {}, launch: LaunchOptions = {}): Promise<LocalGateway> {
    const gateway = new LocalGateway(mkdtempSync(join(tmpdir(), 'gateway-')), env, launch);
    await gateway.boot(String(launch.port ?? 0));
    return gateway;
  }

  /** Same folder and same port, as a developer's restart: origins and URLs stay valid. */
  async restart(): Promise<void> {
    await this.stop();
    await this.boot(new URL(this.info.baseUrl).port);
  }

  /** A clean stop: SIGTERM to the runtime's process group, as a service manager sends. */
  stop(): Promise<void> {
    return this.signalGroup('SIGTERM');
  }

  /**
   * Sends `signal` to the runtime's whole process group, as a terminal's Ctrl-C (SIGINT) does,
   * and resolves once no process of the group is left.
   */
  async signalGroup(signal: NodeJS.Signals): Promise<void> {
    const group = this.child?.pid;
    if (group === undefined || !groupAlive(group)) return;
    process.kill(-group, signal);
    while (groupAlive(group)) await new Promise((done) => setTimeout(done, 20));
  }

  /**
   * Kills the runtime process outright (SIGKILL: a crash, with no drain and no last writes),
   * and resolves once its children (the database, the stand-ins) have gone too, so `restart()`
   * finds the folder free.
   */
  async crash(): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    process.kill(pid, 'SIGKILL');
    while (groupAlive(pid) || processesNaming(this.dataDir).length > 0)
      await new Promise((done) => setTimeout(done, 20));
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  url(path: string): string {
    return `${this.info.baseUrl}${path}`;
  }

  private async boot(port = '0'): Promise<void> {
    const [program, args] = this.launch.viaNpm ? ['npm', ['start']] : [process.execPath, startArguments()];
    const child = spawn(program, args, {
      cwd: ROOT,
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'DEBUG', ...this.env, PORT: port, GATEWAY_DATA_DIR: this.dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own, like a terminal's foreground job: signals go to all of it.
      detached: true,
    });
    this.child = child;
    const bootOutputStart = this.output.length;
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`runtime not ready in time:\n${this.output}`)), START_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        this.output += chunk.toString();
        // Only this boot's output: a restart's log still holds the previous banner.
        if (this.output.includes(READY_BANNER, bootOutputStart)) {
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

/** Live processes whose command line names `text` (the runtime's children get the data folder there). */
export function processesNaming(text: string): string[] {
  if (!existsSync('/proc/self/cmdline')) return [];
  return readdirSync('/proc').filter((pid) => {
    try {
      return (
        /^\d+$/.test(pid) && pid !== String(process.pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)
      );
    } catch {
      return false;
    }
  });
}

/**
 * Whether a live process of the group is left. Signal 0 only checks; on Linux /proc then
 * tells a zombie (exited, waiting for a reaper that a container's init may never be) from a
 * running process.
 */
function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  if (!existsSync('/proc/self/stat')) return true;
  return readdirSync('/proc').some((pid) => /^\d+$/.test(pid) && isLiveMember(pid, group));
}

function isLiveMember(pid: string, group: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name in parentheses: state, parent pid, process group.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(pgrp) === group && state !== 'Z';
  } catch {
    return false; // gone meanwhile
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
