import { canonicalJson } from '../../schema/canonical-json.js';
import { compileBudget, linearRegExp, type RegExpBudget } from './linear-regexp.js';

/**
 * A caller's JSON Schema turned into a graph the bounded evaluator (schema-evaluator.ts) walks.
 * Compiling is linear in the schema: every subschema object becomes one node exactly once (a
 * `$ref` points at the node of its target, so recursive schemas are cyclic graphs, not copies),
 * patterns are compiled once on RE2, and `enum`/`const` become sets of canonical JSON keys so
 * that membership is one lookup, not a deep comparison per allowed value.
 *
 * Semantics: JSON Schema 2020-12 with the draft-07 forms still in wide use (`items` as an
 * array with `additionalItems`, `definitions`, `dependencies`, `$id: "#name"` anchors), so
 * schemas written for either validate as their authors meant. `format`, annotations and
 * unknown keywords are ignored, as before. The keywords whose results depend on what other
 * subschemas evaluated (`unevaluatedProperties`, `unevaluatedItems`) and dynamic references
 * (`$dynamicRef`, `$recursiveRef`) are refused: silently ignoring them would pass answers their
 * schema forbids.
 */

export type JsonType = 'null' | 'boolean' | 'object' | 'array' | 'number' | 'string' | 'integer';

const JSON_TYPES: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'number', 'string', 'integer'];

export interface PatternMatcher {
  readonly source: string;
  /** Charges the match to the check's own budget (linear-regexp.ts). */
  test(text: string, budget: RegExpBudget): boolean;
}

/** One subschema. Fields are present only when its keyword is. */
export interface SchemaNode {
  /** Dense, from 0: the evaluator keys its memo by it. */
  readonly id: number;
  /**
   * Reached from more than one place (a `$ref` target, a subschema listed twice): the same value
   * may be checked against it more than once, so the evaluator remembers its results.
   */
  shared?: boolean;
  /** `true`/`false` schemas. */
  always?: boolean;
  types?: readonly JsonType[];
  enumKeys?: ReadonlySet<string>;
  constKey?: string;
  multipleOf?: number;
  maximum?: number;
  exclusiveMaximum?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: PatternMatcher;
  /** `prefixItems`, or draft-07's array form of `items`. */
  prefixItems?: readonly SchemaNode[];
  /** Items after the prefix: 2020-12 `items`, draft-07 single-schema `items` or `additionalItems`. */
  items?: SchemaNode;
  contains?: SchemaNode;
  minContains?: number;
  maxContains?: number;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: readonly string[];
  properties?: ReadonlyMap<string, SchemaNode>;
  patternProperties?: readonly { readonly matcher: PatternMatcher; readonly schema: SchemaNode }[];
  additionalProperties?: SchemaNode;
  propertyNames?: SchemaNode;
  dependentRequired?: ReadonlyMap<string, readonly string[]>;
  dependentSchemas?: ReadonlyMap<string, SchemaNode>;
  ref?: SchemaNode;
  allOf?: readonly SchemaNode[];
  anyOf?: readonly SchemaNode[];
  oneOf?: readonly SchemaNode[];
  not?: SchemaNode;
  if?: SchemaNode;
  then?: SchemaNode;
  else?: SchemaNode;
}

export interface SchemaProgram {
  readonly root: SchemaNode;
  /** How many nodes there are (ids run from 0 to count - 1). */
  readonly count: number;
}

/** The schema cannot be used: the message says where and why. */
export class SchemaCompileError extends Error {}

type Raw = Record<string, unknown>;

const REFUSED: Record<string, string> = {
  unevaluatedProperties: 'use additionalProperties',
  unevaluatedItems: 'use items',
  $dynamicRef: 'use $ref',
  $recursiveRef: 'use $ref',
};

/** Where relative `$id`s and `$ref`s resolve when the root names no absolute `$id`. */
const DEFAULT_BASE = 'https://schema.invalid/root.json';

/**
 * Compiles `schema`. Patterns are compiled on the RE2 engine, which must be loaded
 * (loadLinearRegExp) and charges its compile budget: open it first.
 */
export function compileProgram(schema: Raw): SchemaProgram {
  const compiler = new Compiler(schema);
  const root = compiler.node(schema, compiler.baseOf(schema), '#');
  return { root, count: compiler.count };
}

class Compiler {
  count = 0;
  readonly #nodes = new Map<unknown, SchemaNode>();
  /** Base URI of every schema object reached through schema keywords. */
  readonly #bases = new Map<Raw, string>();
  /** Schema resources by absolute URI (no fragment), and anchors as `uri#name`. */
  readonly #resources = new Map<string, Raw>();
  readonly #anchors = new Map<string, Raw>();
  /** All of this schema's patterns together. */
  readonly #patterns = compileBudget();

  constructor(root: Raw) {
    this.#index(root, DEFAULT_BASE);
  }

  baseOf(raw: Raw): string {
    return this.#bases.get(raw) ?? DEFAULT_BASE;
  }

  node(raw: unknown, base: string, at: string): SchemaNode {
    const known = this.#nodes.get(raw);
    if (known) {
      known.shared = true;
      return known;
    }
    const node: SchemaNode = { id: this.count++ };
    if (typeof raw === 'boolean') {
      node.always = raw;
      this.#nodes.set(raw, node);
      return node;
    }
    if (!isObject(raw)) throw new SchemaCompileError(`${at} must be a schema (an object or a boolean)`);
    this.#nodes.set(raw, node);
    this.#fill(node, raw, this.#bases.get(raw) ?? base, at);
    return node;
  }

  #fill(node: SchemaNode, raw: Raw, base: string, at: string): void {
    for (const [keyword, instead] of Object.entries(REFUSED))
      if (keyword in raw)
        throw new SchemaCompileError(`${at}/${keyword} is not supported by schema_validation (${instead})`);
    const sub = (value: unknown, path: string) => this.node(value, base, `${at}/${path}`);
    const list = (keyword: string): SchemaNode[] | undefined => {
      const value = raw[keyword];
      if (value === undefined) return undefined;
      if (!Array.isArray(value) || value.length === 0)
        throw new SchemaCompileError(`${at}/${keyword} must be a non-empty array of schemas`);
      return value.map((item, i) => sub(item, `${keyword}/${i}`));
    };
    const map = (keyword: string): Map<string, SchemaNode> | undefined => {
      const value = raw[keyword];
      if (value === undefined) return undefined;
      if (!isObject(value)) throw new SchemaCompileError(`${at}/${keyword} must be an object of schemas`);
      return new Map(Object.entries(value).map(([key, item]) => [key, sub(item, `${keyword}/${escape(key)}`)]));
    };
    const single = (keyword: string): SchemaNode | undefined =>
      raw[keyword] === undefined ? undefined : sub(raw[keyword], keyword);

    if (raw.type !== undefined) node.types = types(raw.type, at);
    if (raw.enum !== undefined) {
      if (!Array.isArray(raw.enum)) throw new SchemaCompileError(`${at}/enum must be an array`);
      node.enumKeys = new Set(raw.enum.map(canonicalJson));
    }
    if ('const' in raw) node.constKey = canonicalJson(raw.const);
    node.multipleOf = number(raw, 'multipleOf', at, 'positive');
    node.maximum = number(raw, 'maximum', at);
    node.minimum = number(raw, 'minimum', at);
    node.exclusiveMaximum = number(raw, 'exclusiveMaximum', at);
    node.exclusiveMinimum = number(raw, 'exclusiveMinimum', at);
    node.maxLength = number(raw, 'maxLength', at, 'count');
    node.minLength = number(raw, 'minLength', at, 'count');
    if (raw.pattern !== undefined) node.pattern = matcher(raw.pattern, `${at}/pattern`, this.#patterns);

    if (Array.isArray(raw.items)) {
      node.prefixItems = list('items');
      node.items = single('additionalItems');
    } else {
      node.prefixItems = list('prefixItems');
      node.items = single('items');
    }
    node.contains = single('contains');
    node.minContains = number(raw, 'minContains', at, 'count');
    node.maxContains = number(raw, 'maxContains', at, 'count');
    node.maxItems = number(raw, 'maxItems', at, 'count');
    node.minItems = number(raw, 'minItems', at, 'count');
    if (raw.uniqueItems !== undefined) {
      if (typeof raw.uniqueItems !== 'boolean') throw new SchemaCompileError(`${at}/uniqueItems must be a boolean`);
      node.uniqueItems = raw.uniqueItems;
    }

    node.maxProperties = number(raw, 'maxProperties', at, 'count');
    node.minProperties = number(raw, 'minProperties', at, 'count');
    if (raw.required !== undefined) node.required = strings(raw.required, `${at}/required`);
    node.properties = map('properties');
    if (raw.patternProperties !== undefined) {
      if (!isObject(raw.patternProperties))
        throw new SchemaCompileError(`${at}/patternProperties must be an object of schemas`);
      node.patternProperties = Object.entries(raw.patternProperties).map(([source, item]) => ({
        matcher: matcher(source, `${at}/patternProperties`, this.#patterns),
        schema: sub(item, `patternProperties/${escape(source)}`),
      }));
    }
    node.additionalProperties = single('additionalProperties');
    node.propertyNames = single('propertyNames');
    this.#dependencies(node, raw, at, sub);

    if (raw.$ref !== undefined) {
      if (typeof raw.$ref !== 'string') throw new SchemaCompileError(`${at}/$ref must be a string`);
      const { target, targetBase } = this.#resolve(raw.$ref, base, at);
      node.ref = this.node(target, targetBase, `${at}/$ref`);
    }
    node.allOf = list('allOf');
    node.anyOf = list('anyOf');
    node.oneOf = list('oneOf');
    node.not = single('not');
    node.if = single('if');
    node.then = single('then');
    node.else = single('else');
  }

  /** `dependentRequired`, `dependentSchemas`, and draft-07's `dependencies` holding either. */
  #dependencies(node: SchemaNode, raw: Raw, at: string, sub: (value: unknown, path: string) => SchemaNode): void {
    const required = new Map<string, readonly string[]>();
    const schemas = new Map<string, SchemaNode>();
    const read = (keyword: string, allow: 'names' | 'schemas' | 'either') => {
      const value = raw[keyword];
      if (value === undefined) return;
      if (!isObject(value)) throw new SchemaCompileError(`${at}/${keyword} must be an object`);
      for (const [key, item] of Object.entries(value)) {
        const path = `${keyword}/${escape(key)}`;
        if (Array.isArray(item) && allow !== 'schemas') required.set(key, strings(item, `${at}/${path}`));
        else if (allow !== 'names') schemas.set(key, sub(item, path));
        else throw new SchemaCompileError(`${at}/${path} must be an array of property names`);
      }
    };
    read('dependentRequired', 'names');
    read('dependentSchemas', 'schemas');
    read('dependencies', 'either');
    if (required.size > 0) node.dependentRequired = required;
    if (schemas.size > 0) node.dependentSchemas = schemas;
  }

  #resolve(ref: string, base: string, at: string): { target: unknown; targetBase: string } {
    let absolute: URL;
    try {
      absolute = new URL(ref, base);
    } catch {
      throw new SchemaCompileError(`${at}/$ref: can't resolve reference ${ref}`);
    }
    const fragment = decodeFragment(absolute.hash);
    absolute.hash = '';
    const resourceUri = absolute.href;
    const resource = this.#resources.get(resourceUri);
    const unresolved = () =>
      new SchemaCompileError(`${at}/$ref: can't resolve reference ${ref} (only references within the schema are)`);
    if (!resource) throw unresolved();
    if (fragment === '') return { target: resource, targetBase: resourceUri };
    if (!fragment.startsWith('/')) {
      const anchored = this.#anchors.get(`${resourceUri}#${fragment}`);
      if (!anchored) throw unresolved();
      return { target: anchored, targetBase: this.#bases.get(anchored) ?? resourceUri };
    }
    let target: unknown = resource;
    for (const part of fragment.slice(1).split('/')) {
      const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
      if (Array.isArray(target) && /^(0|[1-9]\d*)$/.test(key)) target = target[Number(key)];
      else if (isObject(target) && Object.hasOwn(target, key)) target = target[key];
      else throw unresolved();
    }
    return { target, targetBase: (isObject(target) && this.#bases.get(target)) || resourceUri };
  }

  /** Records base URIs, `$id` resources and anchors, walking schema keywords only (not `enum` data). */
  #index(raw: unknown, parentBase: string): void {
    if (!isObject(raw) || this.#bases.has(raw)) return;
    let base = parentBase;
    const id = raw.$id;
    if (typeof id === 'string') {
      if (id.startsWith('#')) this.#anchors.set(`${parentBase}#${id.slice(1)}`, raw);
      else {
        try {
          const resolved = new URL(id, parentBase);
          resolved.hash = '';
          base = resolved.href;
        } catch {
          throw new SchemaCompileError(`$id ${JSON.stringify(id)} is not a valid URI reference`);
        }
      }
    }
    if (parentBase === DEFAULT_BASE && !this.#resources.has(DEFAULT_BASE)) this.#resources.set(DEFAULT_BASE, raw);
    this.#resources.set(base, this.#resources.get(base) ?? raw);
    if (typeof raw.$anchor === 'string') this.#anchors.set(`${base}#${raw.$anchor}`, raw);
    this.#bases.set(raw, base);
    for (const keyword of SUBSCHEMA_SINGLES) this.#index(raw[keyword], base);
    for (const keyword of SUBSCHEMA_LISTS)
      if (Array.isArray(raw[keyword])) for (const s of raw[keyword]) this.#index(s, base);
    for (const keyword of SUBSCHEMA_MAPS)
      if (isObject(raw[keyword])) for (const s of Object.values(raw[keyword])) this.#index(s, base);
  }
}

const SUBSCHEMA_SINGLES = [
  'items',
  'additionalItems',
  'contains',
  'additionalProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];
const SUBSCHEMA_LISTS = ['items', 'prefixItems', 'allOf', 'anyOf', 'oneOf'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];

const isObject = (value: unknown): value is Raw => value !== null && typeof value === 'object' && !Array.isArray(value);

const escape = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

function decodeFragment(hash: string): string {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function types(value: unknown, at: string): JsonType[] {
  const names = Array.isArray(value) ? value : [value];
  if (names.length === 0 || !names.every((name) => JSON_TYPES.includes(name as JsonType)))
    throw new SchemaCompileError(`${at}/type must be one of ${JSON_TYPES.join(', ')}, or an array of them`);
  return names as JsonType[];
}

function number(raw: Raw, keyword: string, at: string, kind?: 'positive' | 'count'): number | undefined {
  const value = raw[keyword];
  if (value === undefined) return undefined;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (kind === 'positive' ? value > 0 : kind === 'count' ? Number.isInteger(value) && value >= 0 : true);
  if (!ok) {
    const what = kind === 'positive' ? 'a number above 0' : kind === 'count' ? 'a non-negative integer' : 'a number';
    throw new SchemaCompileError(`${at}/${keyword} must be ${what}`);
  }
  return value as number;
}

function strings(value: unknown, at: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new SchemaCompileError(`${at} must be an array of strings`);
  return value as string[];
}

function matcher(source: unknown, at: string, budget: RegExpBudget): PatternMatcher {
  if (typeof source !== 'string') throw new SchemaCompileError(`${at} must be a string`);
  const compiled = linearRegExp(source, budget);
  return { source, test: (text, matches) => compiled.test(text, matches) };
}
