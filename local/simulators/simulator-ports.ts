import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator, type SimulatorDefinition } from './harness.js';
import { writeJsonAtomically } from './persisted-state.js';

/**
 * Each simulator's port across restarts of the local runtime: the URLs in runtime.json, and
 * the links a fake handed out (downloads, outputs), stay valid as a real upstream's host
 * does. The ports are kept in `<stateDir>/ports.json` by simulator id; a port another process
 * took meanwhile gives way to a free one, with a warning.
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
  if (port === undefined) return startSimulator(definition, 0, { stateDir });
  try {
    return await startSimulator(definition, port, { stateDir });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    console.warn(`simulator ${id}: port ${port} is taken; a free one instead (links handed out before are lost)`);
    return startSimulator(definition, 0, { stateDir });
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
