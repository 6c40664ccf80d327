import { USAGE_UNITS } from '../catalog/unit-prices.js';
import type { UsageEntry, UsagePurpose } from '../store/usage-items.js';
import { parseIsoInstant } from './iso-instant.js';

/** A ledger entry (a stream image, a retry message's) that cannot be counted as it stands. */
export class MalformedUsageEntryError extends Error {
  override readonly name = 'MalformedUsageEntryError';
}

const PURPOSES: readonly UsagePurpose[] = ['answer', 'vote', 'search', 'synthesis'];

/**
 * The entry in a plain record (a decoded JSON message, a stream image's values): every field
 * of UsageEntry with its type, the required ones present, counts whole, `at` an ISO instant.
 * Other fields (an item's pk, sk, totalTokens) are left out; an absent optional field reads as
 * undefined. The literal below must name every field of UsageEntry (`satisfies`) and each read
 * must return the field's type, so a field added to or changed in UsageEntry is a compile error
 * here until it is read.
 */
export function readUsageEntry(record: Readonly<Record<string, unknown>>): UsageEntry {
  const text = (name: keyof UsageEntry) => typed(record, name, 'string', isString);
  const number = (name: keyof UsageEntry) => typed(record, name, 'number', isFiniteNumber);
  const flag = (name: keyof UsageEntry) => typed(record, name, 'boolean', isBoolean);
  const entry = {
    requestId: required('requestId', text('requestId')),
    sequence: count('sequence', number('sequence')),
    accountId: required('accountId', text('accountId')),
    keyId: text('keyId'),
    route: required('route', text('route')),
    model: required('model', text('model')),
    provider: text('provider'),
    promptTokens: count('promptTokens', number('promptTokens')),
    completionTokens: count('completionTokens', number('completionTokens')),
    cachedTokens: part('cachedTokens', number('cachedTokens')),
    cacheWriteTokens: part('cacheWriteTokens', number('cacheWriteTokens')),
    cacheWrite1hTokens: part('cacheWrite1hTokens', number('cacheWrite1hTokens')),
    reasoningTokens: part('reasoningTokens', number('reasoningTokens')),
    costMicroUsd: count('costMicroUsd', number('costMicroUsd')),
    priced: required('priced', flag('priced')),
    estimated: required('estimated', flag('estimated')),
    cached: required('cached', flag('cached')),
    status: required('status', number('status')),
    outcome: text('outcome'),
    at: instant('at', required('at', text('at'))),
    sessionId: text('sessionId'),
    round: number('round'),
    agent: text('agent'),
    purpose: oneOf('purpose', text('purpose'), PURPOSES),
    unit: oneOf('unit', text('unit'), USAGE_UNITS),
    quantity: notNegative('quantity', number('quantity')),
    durationMs: notNegative('durationMs', number('durationMs')),
    firstTokenMs: notNegative('firstTokenMs', number('firstTokenMs')),
    guardrails: text('guardrails'),
  } satisfies { readonly [K in keyof UsageEntry]-?: unknown };
  return entry;
}

/** The field's value when present: undefined when absent, refused when of another type. */
function typed<T>(
  record: Readonly<Record<string, unknown>>,
  name: string,
  type: string,
  is: (value: unknown) => value is T,
): T | undefined {
  const value = record[name];
  if (value === undefined) return undefined;
  if (!is(value)) throw new MalformedUsageEntryError(`${name}: must be a ${type}`);
  return value;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

function required<T>(name: string, value: T | undefined): T {
  if (value === undefined) throw new MalformedUsageEntryError(`${name}: is required`);
  return value;
}

/** Counters that are summed into totals: whole and not negative, so sums stay exact. */
function count(name: string, value: number | undefined): number {
  const present = required(name, value);
  if (!Number.isSafeInteger(present) || present < 0)
    throw new MalformedUsageEntryError(`${name}: must be a whole number, not negative`);
  return present;
}

/** An optional count (a part of the tokens): whole and not negative when present. */
function part(name: string, value: number | undefined): number | undefined {
  return value === undefined ? undefined : count(name, value);
}

function notNegative(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(value >= 0)) throw new MalformedUsageEntryError(`${name}: must not be negative`);
  return value;
}

function oneOf<T extends string>(name: string, value: string | undefined, values: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const found = values.find((candidate) => candidate === value);
  if (found === undefined) throw new MalformedUsageEntryError(`${name}: must be one of ${values.join(', ')}`);
  return found;
}

function instant(name: string, value: string): string {
  if (parseIsoInstant(value) === undefined)
    throw new MalformedUsageEntryError(`${name}: must be an ISO 8601 date-time`);
  return value;
}
