import { createHash } from 'node:crypto';
import type { ScriptInput } from './script-types.js';

/**
 * Sampling as the simulated model does it: a request that sets `temperature` gets answers
 * drawn from a hash of what it sent, so agents of one model asked the same question at their
 * own seeds answer differently, yet every replay of a request answers the same. A request
 * without temperature keeps the single greedy answer.
 */

/** The sampling fields of a wire request as the script reads them; values that are not numbers are left out. */
export function samplingOf(temperature: unknown, seed: unknown): Pick<ScriptInput, 'temperature' | 'seed'> {
  return {
    ...(typeof temperature === 'number' ? { temperature } : {}),
    ...(typeof seed === 'number' ? { seed } : {}),
  };
}

/** The draw of a sampled request, in hex; undefined when the request sets no temperature. */
export function sampleOf(input: ScriptInput): string | undefined {
  if (input.temperature === undefined) return undefined;
  const { model, temperature, seed, messages } = input;
  return sha256(JSON.stringify({ model, temperature, seed: seed ?? null, messages }));
}

/** Names the draw in a reply: six hex digits. */
export const takeOf = (sample: string): string => sample.slice(0, 6);

/** One of `values`, chosen by the draw and a salt (a property name), so each choice varies on its own. */
export function pickBy<T>(sample: string, salt: string, values: readonly T[]): T {
  const index = Number.parseInt(sha256(`${sample}:${salt}`).slice(0, 8), 16) % values.length;
  return values[index]!;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
