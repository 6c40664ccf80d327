import { canonicalJson } from '../../schema/canonical-json.js';
import { characterCount } from '../../schema/text-length.js';
import { matchBudget } from './linear-regexp.js';
import type { SchemaNode, SchemaProgram } from './schema-program.js';

/**
 * Checks a parsed answer against a compiled caller schema (schema-program.ts) with work bounded
 * whatever the schema's shape, the answer's size, or how the two combine.
 *
 * - Each (subschema, place in the answer) pair is evaluated at most once: the result of a
 *   subschema reached from several places is remembered, so a chain like
 *   `aN = {anyOf: [{$ref: aN+1}, {$ref: aN+1}]}`, exponential for a plain recursive validator,
 *   costs one evaluation per link.
 * - Every evaluation, every item, property and character examined, and every canonical text built
 *   is charged to a step budget; when it runs out the check stops with EvaluationBudgetExceeded,
 *   whatever was left. Membership (`enum`, `const`) and `uniqueItems` compare canonical JSON texts
 *   through hashing, so they are linear in the answer, not quadratic.
 * - Nesting of the evaluation itself is bounded, so no schema can run the stack out.
 *
 * Error messages follow Ajv's wording (`/age must be >= 0`), which callers already read.
 */

/**
 * Budget of one answer's check. A step is one evaluation, one item or property visited, one
 * error found or carried up, four characters of canonical JSON built or 32 characters counted;
 * a remembered result costs three. Measured at 30 to 350 ns of CPU a step on a busy 2-core
 * machine, whatever the shape (`npm run bench -- schema`), so a check holds the event loop for
 * well under 50 ms. Enough for answers of tens of thousands of checked values; uniqueness among
 * objects costs most (about 25,000 objects of 20 characters fit).
 */
export const MAX_EVALUATION_STEPS = 200_000;
/** What remembering a shared subschema's result costs beyond its evaluation, in steps. */
const SHARED_COST = 2;
/** Evaluations nested inside each other (a `$ref` or applicator per level of the answer, and more). */
export const MAX_EVALUATION_NESTING = 600;

export class EvaluationBudgetExceeded extends Error {}

export interface Evaluation {
  readonly valid: boolean;
  /** `<instance path> <message>`, at most `maxErrors` of them. */
  readonly errors: readonly string[];
  /** Of the budget: what the check cost, for tests and benchmarks to see how work grows. */
  readonly steps: number;
}

export interface EvaluationLimits {
  readonly steps?: number;
  readonly nesting?: number;
  readonly maxErrors?: number;
}

interface Issue {
  /** JSON pointer below the value the outcome is about. */
  readonly path: string;
  readonly message: string;
}

interface Outcome {
  readonly valid: boolean;
  readonly issues: readonly Issue[];
}

const VALID: Outcome = { valid: true, issues: [] };
const IN_PROGRESS: Outcome = { valid: false, issues: [] };

export function evaluateSchema(program: SchemaProgram, value: unknown, limits: EvaluationLimits = {}): Evaluation {
  const run = new Run(program.count, limits);
  const outcome = run.evaluate(program.root, value, 0, 0);
  return {
    valid: outcome.valid,
    errors: outcome.issues.map((issue) => `${issue.path || '/'} ${issue.message}`),
    steps: run.stepsUsed,
  };
}

class Run {
  readonly #budget: number;
  #steps: number;
  readonly #nesting: number;
  readonly #maxErrors: number;
  /** Results of shared subschemas, by place × node count + node id. */
  readonly #memo = new Map<number, Outcome>();
  /** A container's children are the places first, first + 1, …; the root is place 0. */
  readonly #firstChild = new Map<object, number>();
  readonly #firstName = new Map<object, number>();
  #places = 1;
  readonly #canonical = new Map<object, string>();
  /** This check's pattern matching, charged by program size × text length. */
  readonly patternWork = matchBudget();

  constructor(
    readonly nodeCount: number,
    limits: EvaluationLimits,
  ) {
    this.#budget = limits.steps ?? MAX_EVALUATION_STEPS;
    this.#steps = this.#budget;
    this.#nesting = limits.nesting ?? MAX_EVALUATION_NESTING;
    this.#maxErrors = limits.maxErrors ?? 5;
  }

  evaluate(node: SchemaNode, value: unknown, place: number, nesting: number): Outcome {
    if (!node.shared) return this.#checked(node, value, place, nesting);
    const key = place * this.nodeCount + node.id;
    const known = this.#memo.get(key);
    if (known === IN_PROGRESS)
      return { valid: false, issues: [{ path: '', message: 'the schema applies itself to this value without end' }] };
    if (known) return known;
    this.#charge(SHARED_COST);
    this.#memo.set(key, IN_PROGRESS);
    const outcome = this.#checked(node, value, place, nesting);
    this.#memo.set(key, outcome);
    return outcome;
  }

  #checked(node: SchemaNode, value: unknown, place: number, nesting: number): Outcome {
    this.#charge(1);
    if (nesting >= this.#nesting)
      throw new EvaluationBudgetExceeded(
        `checking the answer nests more than ${this.#nesting} subschemas deep; simplify the schema`,
      );
    if (node.always !== undefined)
      return node.always ? VALID : { valid: false, issues: [{ path: '', message: 'boolean schema is false' }] };
    return new Check(this, node, value, place, nesting + 1).run();
  }

  charge(units: number): void {
    this.#charge(units);
  }

  #charge(units: number): void {
    this.#steps -= units;
    if (this.#steps < 0)
      throw new EvaluationBudgetExceeded(
        "the answer is too large to check against this schema within the gateway's work budget",
      );
  }

  get stepsUsed(): number {
    return this.#budget - this.#steps;
  }

  get maxErrors(): number {
    return this.#maxErrors;
  }

  /** The place of `container`'s child at `index` (its position among items or own keys). */
  childPlace(container: object, index: number, size: number): number {
    return this.#placeIn(this.#firstChild, container, index, size);
  }

  /** A property name is a value checked too (`propertyNames`): it gets a place of its own. */
  namePlace(object: object, index: number, size: number): number {
    return this.#placeIn(this.#firstName, object, index, size);
  }

  /** Places are handed out a container at a time, at its first visit: children are contiguous. */
  #placeIn(firsts: Map<object, number>, container: object, index: number, size: number): number {
    let first = firsts.get(container);
    if (first === undefined) {
      first = this.#places;
      this.#places += size;
      firsts.set(container, first);
    }
    return first + index;
  }

  /** Canonical JSON of `value`: a container's is built once and charged by its length. */
  canonical(value: unknown): string {
    if (value === null || typeof value !== 'object') {
      this.#charge(1);
      return JSON.stringify(value);
    }
    let text = this.#canonical.get(value);
    if (text === undefined) {
      text = canonicalJson(value);
      this.#charge(1 + (text.length >> 2));
      this.#canonical.set(value, text);
    }
    return text;
  }
}

/** One subschema applied to one value: its keywords in turn, issues collected up to the cap. */
class Check {
  #valid = true;
  readonly #issues: Issue[] = [];

  constructor(
    private readonly ctx: Run,
    private readonly node: SchemaNode,
    private readonly value: unknown,
    private readonly place: number,
    private readonly nesting: number,
  ) {}

  run(): Outcome {
    const { node, value } = this;
    if (node.types && !node.types.some((type) => hasType(value, type))) this.#fail(`must be ${node.types.join(',')}`);
    if (node.enumKeys && !node.enumKeys.has(this.ctx.canonical(value)))
      this.#fail('must be equal to one of the allowed values');
    if (node.constKey !== undefined && node.constKey !== this.ctx.canonical(value))
      this.#fail('must be equal to constant');
    if (typeof value === 'number') this.#number(value);
    else if (typeof value === 'string') this.#string(value);
    else if (Array.isArray(value)) this.#array(value);
    else if (value !== null && typeof value === 'object') this.#object(value as Record<string, unknown>);
    this.#applicators();
    return this.#valid ? VALID : { valid: false, issues: this.#issues };
  }

  #fail(message: string): void {
    this.#valid = false;
    this.ctx.charge(1);
    if (this.#issues.length < this.ctx.maxErrors) this.#issues.push({ path: '', message });
  }

  /** Merges a subschema's outcome about this value, or about its child at `key`. */
  #take(outcome: Outcome, key?: string | number): boolean {
    if (outcome.valid) return true;
    this.#valid = false;
    const room = Math.min(outcome.issues.length, this.ctx.maxErrors - this.#issues.length);
    if (room <= 0) return false;
    this.ctx.charge(room);
    // Paths are built only for issues that are kept: most subschemas pass.
    const prefix = key === undefined ? '' : `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
    for (let i = 0; i < room; i++) {
      const issue = outcome.issues[i]!;
      this.#issues.push({ path: prefix + issue.path, message: issue.message });
    }
    return false;
  }

  #same(node: SchemaNode): Outcome {
    return this.ctx.evaluate(node, this.value, this.place, this.nesting);
  }

  #child(node: SchemaNode, container: object, index: number, size: number, child: unknown): Outcome {
    return this.ctx.evaluate(node, child, this.ctx.childPlace(container, index, size), this.nesting);
  }

  #number(value: number): void {
    const n = this.node;
    if (n.multipleOf !== undefined && !Number.isInteger(value / n.multipleOf))
      this.#fail(`must be multiple of ${n.multipleOf}`);
    if (n.maximum !== undefined && !(value <= n.maximum)) this.#fail(`must be <= ${n.maximum}`);
    if (n.minimum !== undefined && !(value >= n.minimum)) this.#fail(`must be >= ${n.minimum}`);
    if (n.exclusiveMaximum !== undefined && !(value < n.exclusiveMaximum))
      this.#fail(`must be < ${n.exclusiveMaximum}`);
    if (n.exclusiveMinimum !== undefined && !(value > n.exclusiveMinimum))
      this.#fail(`must be > ${n.exclusiveMinimum}`);
  }

  #string(value: string): void {
    const n = this.node;
    if (n.maxLength !== undefined || n.minLength !== undefined) {
      this.ctx.charge(value.length >> 5);
      const length = characterCount(value);
      if (n.maxLength !== undefined && length > n.maxLength)
        this.#fail(`must NOT have more than ${n.maxLength} characters`);
      if (n.minLength !== undefined && length < n.minLength)
        this.#fail(`must NOT have fewer than ${n.minLength} characters`);
    }
    // Matching is charged to this check's pattern budget, by program size × text length.
    if (n.pattern && !n.pattern.test(value, this.ctx.patternWork))
      this.#fail(`must match pattern "${n.pattern.source}"`);
  }

  #array(items: unknown[]): void {
    const n = this.node;
    const size = items.length;
    if (n.maxItems !== undefined && size > n.maxItems) this.#fail(`must NOT have more than ${n.maxItems} items`);
    if (n.minItems !== undefined && size < n.minItems) this.#fail(`must NOT have fewer than ${n.minItems} items`);
    const prefix = n.prefixItems ?? [];
    if (n.prefixItems || n.items) {
      this.ctx.charge(size);
      for (let i = 0; i < size; i++) {
        const node = i < prefix.length ? prefix[i] : n.items;
        if (node) this.#take(this.#child(node, items, i, size, items[i]), i);
      }
    }
    if (n.contains) this.#contains(items, n.contains);
    if (n.uniqueItems) this.#unique(items);
  }

  #contains(items: unknown[], contains: SchemaNode): void {
    const n = this.node;
    const size = items.length;
    this.ctx.charge(size);
    let matches = 0;
    for (let i = 0; i < size; i++) if (this.#child(contains, items, i, size, items[i]).valid) matches++;
    const least = n.minContains ?? 1;
    if (matches < least) this.#fail(`must contain at least ${least} valid item(s)`);
    if (n.maxContains !== undefined && matches > n.maxContains)
      this.#fail(`must contain at most ${n.maxContains} valid item(s)`);
  }

  /** One canonical text per item and one hash lookup each: linear, whatever the items are. */
  #unique(items: unknown[]): void {
    const seen = new Map<string, number>();
    for (let i = items.length - 1; i >= 0; i--) {
      const text = this.ctx.canonical(items[i]);
      const later = seen.get(text);
      if (later !== undefined) {
        this.#fail(`must NOT have duplicate items (items ## ${later} and ${i} are identical)`);
        return;
      }
      seen.set(text, i);
    }
  }

  #object(object: Record<string, unknown>): void {
    const n = this.node;
    const keys = Object.keys(object);
    const size = keys.length;
    if (n.maxProperties !== undefined && size > n.maxProperties)
      this.#fail(`must NOT have more than ${n.maxProperties} properties`);
    if (n.minProperties !== undefined && size < n.minProperties)
      this.#fail(`must NOT have fewer than ${n.minProperties} properties`);
    if (n.required) {
      this.ctx.charge(n.required.length);
      for (const name of n.required)
        if (!Object.hasOwn(object, name)) this.#fail(`must have required property '${name}'`);
    }
    if (n.dependentRequired) {
      this.ctx.charge(n.dependentRequired.size);
      for (const [name, needed] of n.dependentRequired) {
        if (!Object.hasOwn(object, name)) continue;
        this.ctx.charge(needed.length);
        for (const other of needed)
          if (!Object.hasOwn(object, other)) this.#fail(`must have property ${other} when property ${name} is present`);
      }
    }
    if (n.properties || n.patternProperties || n.additionalProperties || n.propertyNames) {
      this.ctx.charge(size);
      for (let i = 0; i < size; i++) this.#property(object, keys[i]!, i, size);
    }
    if (n.dependentSchemas) {
      this.ctx.charge(n.dependentSchemas.size);
      for (const [name, node] of n.dependentSchemas) if (Object.hasOwn(object, name)) this.#take(this.#same(node));
    }
  }

  #property(object: Record<string, unknown>, key: string, index: number, size: number): void {
    const n = this.node;
    const child = object[key];
    if (n.propertyNames) {
      const name = this.ctx.evaluate(n.propertyNames, key, this.ctx.namePlace(object, index, size), this.nesting);
      if (!name.valid) this.#fail(`property name '${key}' is invalid`);
    }
    let matched = false;
    const named = n.properties?.get(key);
    if (named) {
      matched = true;
      this.#take(this.#child(named, object, index, size, child), key);
    }
    if (n.patternProperties) {
      this.ctx.charge(n.patternProperties.length);
      for (const { matcher, schema } of n.patternProperties) {
        if (!matcher.test(key, this.ctx.patternWork)) continue;
        matched = true;
        this.#take(this.#child(schema, object, index, size, child), key);
      }
    }
    if (!matched && n.additionalProperties) {
      if (n.additionalProperties.always === false) this.#fail('must NOT have additional properties');
      else this.#take(this.#child(n.additionalProperties, object, index, size, child), key);
    }
  }

  #applicators(): void {
    const n = this.node;
    if (n.ref) this.#take(this.#same(n.ref));
    if (n.allOf) for (const node of n.allOf) this.#take(this.#same(node));
    if (n.anyOf) {
      const outcomes = n.anyOf.map((node) => this.#same(node));
      if (!outcomes.some((o) => o.valid)) {
        for (const outcome of outcomes) this.#take(outcome);
        this.#fail('must match a schema in anyOf');
      }
    }
    if (n.oneOf) {
      const outcomes = n.oneOf.map((node) => this.#same(node));
      const passing = outcomes.filter((o) => o.valid).length;
      if (passing === 0) for (const outcome of outcomes) this.#take(outcome);
      if (passing !== 1) this.#fail('must match exactly one schema in oneOf');
    }
    if (n.not && this.#same(n.not).valid) this.#fail('must NOT be valid');
    if (n.if) {
      const branch = this.#same(n.if).valid ? n.then : n.else;
      if (branch && !this.#take(this.#same(branch)))
        this.#fail(`must match "${branch === n.then ? 'then' : 'else'}" schema`);
    }
  }
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    default:
      return typeof value === type;
  }
}
