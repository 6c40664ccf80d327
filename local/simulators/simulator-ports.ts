import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator, type SimulatorDefinition } from './harness.js';
import { writeJsonAtomically } from './persisted-state.js';

/**
 * Each simulator's port across restarts of the local runtime: the URLs in runtime.json, and
 * the links a fake handed out (downloads, outputs), stay valid as a real upstream's host
 * does. The ports are kept in `<stateDir>/ports.json` by simulator id; a port another process
 * took meanwhile gives way to a free one, with a warning. A port to keep is chosen below the
 * system's ephemeral range, where outgoing connections never take it.
 */

const PORTS_FILE = 'ports.json';

/**
 * Starts `definition` over `stateDir` on the port `id` had there last time, and records the
 * port it got. Without a folder: a free port, nothing recorded.
 */
export async function startOnKeptPort(
  id: string,
  definition: SimulatorDefinition,
  stateDir: string | undefined,
): Promise<RunningSimulator> {
  if (stateDir === undefined) return startSimulator(definition);
  const file = join(stateDir, PORTS_FILE);
  const simulator = await startPreferring(id, definition, recordedPorts(file)[id], stateDir);
  // Read again: every simulator of the runtime records its own port in the same file.
  writeJsonAtomically(file, { ...recordedPorts(file), [id]: Number(new URL(simulator.url).port) });
  return simulator;
}

async function startPreferring(
  id: string,
  definition: SimulatorDefinition,
  port: number | undefined,
  stateDir: string,
): Promise<RunningSimulator> {
  if (port === undefined) return startOnKeepablePort(definition, stateDir);
  try {
    return await startSimulator(definition, port, { stateDir });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    console.warn(`simulator ${id}: port ${port} is taken; a free one instead (links handed out before are lost)`);
    return startOnKeepablePort(definition, stateDir);
  }
}

/** Random ports tried below the ephemeral range before settling for any free port. */
const KEEPABLE_PORT_TRIES = 20;
const LOWEST_KEEPABLE_PORT = 10_000;

/**
 * A port to keep: one below the system's ephemeral range, so that while the runtime is stopped
 * no outgoing connection (of any process) is handed it as its local port, which would take it
 * from the next start. A port the system hands out for port 0 is in that range. Falls back to
 * any free port when the range leaves no room or every try is taken.
 */
async function startOnKeepablePort(definition: SimulatorDefinition, stateDir: string): Promise<RunningSimulator> {
  const below = ephemeralRangeStart();
  for (let i = 0; below - LOWEST_KEEPABLE_PORT > 1000 && i < KEEPABLE_PORT_TRIES; i++) {
    const port = LOWEST_KEEPABLE_PORT + Math.floor(Math.random() * (below - LOWEST_KEEPABLE_PORT));
    try {
      return await startSimulator(definition, port, { stateDir });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  return startSimulator(definition, 0, { stateDir });
}

/** The first port of the ephemeral range: Linux says, elsewhere IANA's 49152 (macOS, Windows). */
function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return isPort(low) ? low : 49_152;
  } catch {
    return 49_152;
  }
}

function recordedPorts(file: string): Record<string, number> {
  let saved: unknown;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      console.warn(`simulator ports: ${file} is unreadable (${String(error)}); free ports instead`);
    return {};
  }
  if (typeof saved !== 'object' || saved === null) return {};
  return Object.fromEntries(Object.entries(saved).filter(([, port]) => isPort(port))) as Record<string, number>;
}

const isPort = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) > 0 && (value as number) < 65536;
