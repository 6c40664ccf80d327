import { Ajv, type ValidateFunction } from 'ajv';
import { findJsonViolation } from '../../schema/json-limits.js';
import type { ResponseFormat } from '../../providers/chat/types.js';
import { hasSelfApplyingCycle } from './schema-cycles.js';
import {
  linearRegExp,
  loadLinearRegExp,
  openCompileBudget,
  openMatchBudget,
  RegExpBudgetExceeded,
} from './linear-regexp.js';

/**
 * The `schema_validation` guardrail: does the model's answer match the request's
 * `response_format`? `json_schema` → the answer must parse and satisfy `json_schema.schema`;
 * `json_object` → it must parse as a JSON object. Answers that are tool calls, and text formats,
 * are `skip`: there is nothing to check against.
 *
 * Callers' schemas are not ours: unknown keywords are allowed (strict off) and `format` is not
 * checked (no format library is installed), so only structure, types and values are enforced.
 *
 * Caller schemas are evaluated in bounded time: `pattern` and `patternProperties` run on RE2
 * (linear in the text, whatever the pattern), and a schema is compiled only within the limits
 * below, because compiling is synchronous work proportional to its size (code generation is not
 * optimised: that pass costs more than it saves on a schema used a few times).
 */
const ajv = new Ajv({
  allErrors: true,
  strict: false,
  validateFormats: false,
  logger: false,
  code: { regExp: linearRegExp, optimize: false },
});

/** Documented in README.md (chat completions). */
export const MAX_VALIDATED_SCHEMA_NODES = 1000;
export const MAX_VALIDATED_SCHEMA_DEPTH = 64;
/** Deeper answers are refused rather than walked (a recursive `$ref` recurses per level). */
export const MAX_ANSWER_DEPTH = 128;

/** Compiled validators, least recently used first; keyed by canonical schema JSON. */
const cache = new Map<string, ValidateFunction>();
export const SCHEMA_CACHE_SIZE = 100;
const MAX_ERRORS = 5;

export type SchemaOutcome = 'pass' | 'fail' | 'skip';

export interface SchemaResult {
  outcome: SchemaOutcome;
  errors?: string[];
}

export interface Answer {
  content: string | null | undefined;
  hasToolCalls: boolean;
}

/**
 * Throws (with Ajv's message) when the schema itself is invalid, has unresolvable `$ref`s or a
 * pattern RE2 cannot run, or is beyond the limits above.
 */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  checkCompilable(schema);
  const { $schema: _dialect, ...body } = schema; // the dialect URI names meta-schemas Ajv may not have loaded
  const key = canonicalJson(body);
  const cached = cache.get(key);
  if (cached) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  let validate: ValidateFunction;
  try {
    openCompileBudget();
    validate = ajv.compile(body);
  } finally {
    // Ajv keeps every schema it compiled (and claims its $id); the bounded cache above is ours.
    ajv.removeSchema(body);
  }
  cache.set(key, validate);
  if (cache.size > SCHEMA_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return validate;
}

/**
 * For request time: why the response_format's schema cannot be used, or undefined. It compiles
 * (and caches) the schema, and loads the pattern engine, before any answer is checked.
 */
export async function responseFormatSchemaError(format: ResponseFormat | undefined): Promise<string | undefined> {
  if (format?.type !== 'json_schema' || !format.json_schema.schema) return undefined;
  await loadLinearRegExp();
  try {
    compileSchema(format.json_schema.schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export function validateAnswer(answer: Answer, format: ResponseFormat | undefined): SchemaResult {
  if (answer.hasToolCalls || !format || format.type === 'text') return { outcome: 'skip' };
  if (typeof answer.content !== 'string' || answer.content.trim() === '') return fail(['the answer has no content']);
  let value: unknown;
  try {
    value = JSON.parse(answer.content);
  } catch {
    return fail(['the answer is not valid JSON']);
  }
  if (format.type === 'json_object') {
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? { outcome: 'pass' }
      : fail(['the answer is not a JSON object']);
  }
  const schema = format.json_schema.schema;
  if (!schema) return { outcome: 'pass' };
  if (findJsonViolation(value, { maxDepth: MAX_ANSWER_DEPTH }))
    return fail([`the answer nests deeper than ${MAX_ANSWER_DEPTH} levels`]);
  const validate = compileSchema(schema);
  try {
    openMatchBudget();
    if (validate(value)) return { outcome: 'pass' };
  } catch (error) {
    if (error instanceof RegExpBudgetExceeded) return fail([error.message]);
    // A `$ref` cycle that consumes nothing (`{"$ref": "#"}`) recurses until the stack ends.
    if (error instanceof RangeError) return fail(['the schema refers to itself without end']);
    throw error;
  }
  return fail(
    (validate.errors ?? []).slice(0, MAX_ERRORS).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`),
  );
}

const fail = (errors: string[]): SchemaResult => ({ outcome: 'fail', errors });

function checkCompilable(schema: Record<string, unknown>): void {
  const violation = findJsonViolation(schema, {
    maxDepth: MAX_VALIDATED_SCHEMA_DEPTH,
    maxNodes: MAX_VALIDATED_SCHEMA_NODES,
  });
  if (violation?.kind === 'nodes')
    throw new Error(`schema_validation checks schemas of at most ${MAX_VALIDATED_SCHEMA_NODES} JSON values`);
  if (violation?.kind === 'depth')
    throw new Error(`schema_validation checks schemas nested at most ${MAX_VALIDATED_SCHEMA_DEPTH} levels`);
  if (violation) throw new Error('a schema must hold only finite numbers');
  if (hasSelfApplyingCycle(schema))
    throw new Error('the schema applies itself to the same value without end (a $ref cycle that reads nothing)');
}

/** Key order does not change a schema's meaning, so it must not change its cache key. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
