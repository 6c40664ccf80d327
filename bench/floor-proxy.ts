import { spawn } from 'node:child_process';
import { join } from 'node:path';

const SERVER = join(import.meta.dirname, 'floor-proxy-server.ts');
const ROOT = join(import.meta.dirname, '..');
const START_TIMEOUT_MS = 15_000;

export interface FloorProxy {
  /** The proxy's origin: `http://127.0.0.1:<port>`; any path goes to the same path upstream. */
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the bare pass-through proxy (bench/floor-proxy-server.ts) in its own process, on the
 * same Node and loader as the gateway's child, so its CPU and event loop are separate from
 * both the benchmark client and the gateway.
 */
export async function startFloorProxy(upstreamOrigin: string): Promise<FloorProxy> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, upstreamOrigin], {
    cwd: ROOT,
    // stdin is a pipe only so the proxy sees EOF (and exits) if this process dies.
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  try {
    const port = await new Promise<number>((ready, fail) => {
      let output = '';
      const timer = setTimeout(() => fail(new Error(`floor proxy not ready in time: ${output}`)), START_TIMEOUT_MS);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const line = /^\{"port":(\d+)\}$/m.exec(output);
        if (line) {
          clearTimeout(timer);
          ready(Number(line[1]));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`floor proxy exited with ${code}: ${output}`));
      });
    });
    return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
