import { canonicalJson } from '../../schema/canonical-json.js';
import { findJsonViolation } from '../../schema/json-limits.js';
import type { ResponseFormat } from '../../providers/chat-types.js';
import { hasSelfApplyingCycle } from './schema-cycles.js';
import { EvaluationBudgetExceeded, evaluateSchema } from './schema-evaluator.js';
import { compileProgram, type SchemaProgram } from './schema-program.js';
import { loadLinearRegExp, RegExpBudgetExceeded } from './linear-regexp.js';

/**
 * The `schema_validation` guardrail: does the model's answer match the request's
 * `response_format`? `json_schema` → the answer must parse and satisfy `json_schema.schema`;
 * `json_object` → it must parse as a JSON object. Answers that are tool calls, and text formats,
 * are `skip`: there is nothing to check against.
 *
 * Callers' schemas are not ours, so they are never run by a general-purpose validator: the
 * schema is compiled into a graph (schema-program.ts) and evaluated with work bounded whatever
 * its shape (schema-evaluator.ts: each subschema checks each value at most once, and a step
 * budget stops the rest); `pattern` and `patternProperties` run on RE2 under their own budgets
 * (linear-regexp.ts). Compiling is linear in the schema, and only within the limits below.
 * `format` is not checked and unknown keywords are ignored.
 */

/** Documented in README.md (chat completions). */
export const MAX_VALIDATED_SCHEMA_NODES = 1000;
export const MAX_VALIDATED_SCHEMA_DEPTH = 64;
/** Deeper answers are refused rather than walked (a recursive `$ref` recurses per level). */
export const MAX_ANSWER_DEPTH = 128;

/** Compiled schemas, least recently used first; keyed by canonical schema JSON. */
const cache = new Map<string, SchemaProgram>();
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
 * Throws (saying where and why) when the schema itself is invalid, has unresolvable `$ref`s, a
 * pattern RE2 cannot run or a keyword schema_validation refuses, or is beyond the limits above.
 */
export function compileSchema(schema: Record<string, unknown>): SchemaProgram {
  checkCompilable(schema);
  const key = canonicalJson(schema);
  const cached = cache.get(key);
  if (cached) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const program = compileProgram(schema);
  cache.set(key, program);
  if (cache.size > SCHEMA_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return program;
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
  const program = compileSchema(schema);
  try {
    const evaluation = evaluateSchema(program, value, { maxErrors: MAX_ERRORS });
    return evaluation.valid ? { outcome: 'pass' } : fail([...evaluation.errors]);
  } catch (error) {
    if (error instanceof RegExpBudgetExceeded || error instanceof EvaluationBudgetExceeded)
      return fail([error.message]);
    // The last fuse: the nesting bound keeps well inside the stack, but a smaller stack must not
    // turn a caller's schema into a 5xx.
    if (error instanceof RangeError) return fail(['checking the answer against this schema nests too deeply']);
    throw error;
  }
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
