import type { ErrorObject } from 'ajv';
import type { ValueCheck } from '../schema/compile.js';
import { findJsonViolation, type PathSegment } from '../schema/json-limits.js';
import { badRequest } from './errors.js';

/**
 * JSON-schema validation whose failures are 400s naming the field and the rule, e.g.
 * `rateLimit: must be <= 10000`. The compilers live in lambdas/schema/compile.ts.
 */

/**
 * A schema may word its own failure with `x-message` (where ajv's wording would not help):
 * a string for any failure, or one message per keyword (`{"contains": "..."}`), so that a
 * length or count limit still says its limit.
 */
const MESSAGE_KEYWORD = 'x-message';

/**
 * Every JSON body may nest at most this deep, checked right after parsing, before any recursive
 * walk. Fields with tighter limits (chat schemas) check their own.
 */
export const MAX_BODY_DEPTH = 128;

export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    throw badRequest('body', 'body: must be valid JSON');
  }
}

/** A query parameter's name as a refusal quotes it, at most this long. */
const MAX_QUOTED_NAME_CHARS = 100;

/**
 * One policy for every route: a query parameter the route does not take is refused, naming it,
 * rather than ignored (a misspelt `form=` would otherwise answer as if no period were asked).
 */
export function checkQuery(query: Readonly<Record<string, string>>, known: readonly string[]): void {
  const unknown = Object.keys(query).find((name) => !known.includes(name));
  if (unknown === undefined) return;
  const name = unknown.length > MAX_QUOTED_NAME_CHARS ? `${unknown.slice(0, MAX_QUOTED_NAME_CHARS)}…` : unknown;
  const takes = known.length > 0 ? `this route takes ${known.join(', ')}` : 'this route takes none';
  throw badRequest(name, `${name}: is not a query parameter of this route (${takes})`);
}

/** Checks the value's shape first: the validator and everything after it may recurse. */
export function validate<T>(validator: ValueCheck<T>, value: unknown, root = 'body'): T {
  checkShape(value, validator.schema, root);
  if (validator(value)) return value;
  throw toBadRequest(mostSpecific(validator.errors ?? []), root);
}

function checkShape(value: unknown, schema: unknown, root: string): void {
  const violation = findJsonViolation(value, { maxDepth: MAX_BODY_DEPTH });
  if (!violation) return;
  const field = formatFieldPath(describedPart(violation.path, schema)) || root;
  if (violation.kind === 'number')
    throw badRequest(field, `${field}: must hold only finite numbers (JSON numbers beyond ±1.8e308 overflow)`);
  throw badRequest(field, `${field}: nests too deep; a request body may nest at most ${MAX_BODY_DEPTH} levels`);
}

/**
 * The field to name for a violation deep inside a value: the path as far as the schema
 * describes it (`tools[0].function.parameters`, not the thousand segments below), plus one
 * undescribed member of an object whose members are listed (`metadata`).
 */
function describedPart(path: readonly PathSegment[], schema: unknown): PathSegment[] {
  let node = asRecord(schema);
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    const next = node && childOf(node, segment);
    if (!next) return path.slice(0, node && describesChildren(node) ? i + 1 : Math.max(i, 1));
    node = next;
  }
  return [...path];
}

/** The schema of a member or item, looking through alternatives (a body of two forms, a role's branch). */
function childOf(node: Record<string, unknown>, segment: PathSegment): Record<string, unknown> | undefined {
  const listed = typeof segment === 'number' ? node['items'] : asRecord(node['properties'])?.[segment];
  const direct = asRecord(listed);
  if (direct) return direct;
  for (const alternative of alternativesOf(node)) {
    const found = childOf(alternative, segment);
    if (found) return found;
  }
  return undefined;
}

const describesChildren = (node: Record<string, unknown>): boolean =>
  Boolean(node['properties'] || node['items']) || alternativesOf(node).some(describesChildren);

const alternativesOf = (node: Record<string, unknown>): Record<string, unknown>[] =>
  (['oneOf', 'anyOf', 'allOf'] as const).flatMap((keyword) =>
    Array.isArray(node[keyword])
      ? (node[keyword] as unknown[]).flatMap((option): Record<string, unknown>[] => {
          const record = asRecord(option);
          return record ? [record] : [];
        })
      : [],
  );

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Keywords whose failure only says that no alternative fitted, not what is wrong. */
const STRUCTURAL: ReadonlySet<string> = new Set(['type', 'anyOf', 'oneOf', 'if', 'const', 'enum']);

/**
 * Under `anyOf`/`oneOf` ajv reports every branch's failure. The deepest failure that is not a
 * type or branch mismatch is the one the caller meant (a 2 MB string fails `maxLength`, not
 * `type: array`); when every failure is a mismatch, the outermost one (the alternative itself,
 * reported last) says what was expected.
 */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject | undefined {
  const specific = errors.filter((error) => !STRUCTURAL.has(error.keyword));
  if (specific.length > 0)
    return specific.reduce((best, error) => (error.instancePath.length > best.instancePath.length ? error : best));
  const outermost = errors.at(-1);
  return outermost && ownMessage(outermost) ? outermost : errors[0];
}

function ownMessage(error: ErrorObject): string | undefined {
  const own = (error.parentSchema as Record<string, unknown> | undefined)?.[MESSAGE_KEYWORD];
  if (typeof own === 'string') return own;
  const perKeyword = (own as Record<string, unknown> | undefined)?.[error.keyword];
  return typeof perKeyword === 'string' ? perKeyword : undefined;
}

function toBadRequest(error: ErrorObject | undefined, root: string) {
  if (!error) return badRequest(root, `${root}: invalid`);
  const path = fieldPath(error.instancePath);
  switch (error.keyword) {
    case 'required': {
      const field = join(path, (error.params as { missingProperty: string }).missingProperty);
      return badRequest(field, `${field}: is required`);
    }
    case 'additionalProperties': {
      const field = join(path, (error.params as { additionalProperty: string }).additionalProperty);
      return badRequest(field, `${field}: is not a known field`);
    }
    default: {
      const field = path || root;
      return badRequest(
        field,
        `${field}: ${ownMessage(error) ?? allowedValues(error) ?? error.message ?? 'is invalid'}`,
      );
    }
  }
}

/** An enum lists at most this many of its values in a refusal (the rest are counted). */
export const MAX_LISTED_VALUES = 12;
/** A listed value longer than this is cut (an enum of objects, a long string). */
const MAX_LISTED_VALUE_CHARS = 60;

/**
 * What an `enum` or `const` allows, said outright (`must be one of weighted, round-robin,
 * least-latency`), where ajv would only say "must be equal to one of the allowed values".
 */
function allowedValues(error: ErrorObject): string | undefined {
  if (error.keyword === 'const') return `must be ${listed((error.params as { allowedValue: unknown }).allowedValue)}`;
  if (error.keyword !== 'enum') return undefined;
  const values = (error.params as { allowedValues: readonly unknown[] }).allowedValues;
  const shown = values.slice(0, MAX_LISTED_VALUES).map(listed).join(', ');
  const more = values.length - MAX_LISTED_VALUES;
  return `must be one of ${shown}${more > 0 ? ` and ${more} more` : ''}`;
}

function listed(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_LISTED_VALUE_CHARS ? `${text.slice(0, MAX_LISTED_VALUE_CHARS)}…` : text;
}

/** `/allowedOrigins/0` → `allowedOrigins[0]`. */
function fieldPath(instancePath: string): string {
  return formatFieldPath(
    instancePath
      .split('/')
      .slice(1)
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
  );
}

/** `['tools', 0, 'function']` → `tools[0].function`. */
export function formatFieldPath(segments: readonly PathSegment[]): string {
  return segments.reduce<string>(
    (path, part) => (typeof part === 'number' ? `${path}[${part}]` : join(path, part)),
    '',
  );
}

/** Property names that are not plain identifiers are quoted, so an empty name is still named. */
const join = (path: string, field: string) => {
  if (!/^[A-Za-z_$][\w$]*$/.test(field)) return `${path}[${JSON.stringify(field)}]`;
  return path ? `${path}.${field}` : field;
};
