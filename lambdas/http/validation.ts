import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import { badRequest } from './errors.js';

/**
 * JSON-schema validation whose failures are 400s naming the field and the rule, e.g.
 * `rateLimit: must be <= 10000`. Schemas are compiled once per function at init.
 */
const ajv = new Ajv({ allErrors: false, useDefaults: true, coerceTypes: false, strict: true });
/** For schemas that need conditionals (if/then per message role), which strict mode forbids. */
const conditionalAjv = new Ajv({
  allErrors: false,
  useDefaults: true,
  coerceTypes: false,
  strict: false,
  verbose: true,
});

/** A schema may word its own failure with `x-message` (where ajv's wording would not help). */
const MESSAGE_KEYWORD = 'x-message';

export type Schema<T> = JSONSchemaType<T>;
export type Validator<T> = ValidateFunction<T>;

export function compile<T>(schema: Schema<T>): Validator<T> {
  return ajv.compile(schema);
}

export function compileConditional<T>(schema: object): Validator<T> {
  return conditionalAjv.compile<T>(schema);
}

export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    throw badRequest('body', 'body: must be valid JSON');
  }
}

export function validate<T>(validator: Validator<T>, value: unknown, root = 'body'): T {
  if (validator(value)) return value;
  throw toBadRequest(validator.errors?.[0], root);
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
      const own = (error.parentSchema as Record<string, unknown> | undefined)?.[MESSAGE_KEYWORD];
      return badRequest(field, `${field}: ${typeof own === 'string' ? own : (error.message ?? 'is invalid')}`);
    }
  }
}

/** `/allowedOrigins/0` → `allowedOrigins[0]`. */
function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : join(path, part)), '');
}

/** Property names that are not plain identifiers are quoted, so an empty name is still named. */
const join = (path: string, field: string) => {
  if (!/^[A-Za-z_$][\w$]*$/.test(field)) return `${path}[${JSON.stringify(field)}]`;
  return path ? `${path}.${field}` : field;
};
