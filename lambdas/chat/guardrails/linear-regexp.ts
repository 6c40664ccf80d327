import type { RE2JS } from 're2js';
import { exceedsCharacters } from '../../schema/text-length.js';

/**
 * The regular-expression engine for callers' schemas: RE2 (re2js, pure JS) matches in time
 * linear in the text, so a pattern like `^(a+)+$` cannot stall the event loop as V8's
 * backtracking engine does. JavaScript syntax is translated first (`\u00e9`, named groups);
 * what RE2 cannot run at all (lookaround, backreferences) fails compilation with a message
 * naming the pattern.
 *
 * Linear is not yet bounded: RE2's worst case is (program size × text length), and compiling
 * costs about the program size. So every compiled program and every match is charged to a
 * budget that the caller opens for one schema compilation or one answer's validation.
 */

/** Characters of one pattern: checked before compiling, which costs about as much. */
export const MAX_PATTERN_LENGTH = 1000;
/** Instructions one pattern may compile to (`^\d{4}-\d{2}-\d{2}$` is 14, an e-mail pattern ~15). */
export const MAX_PATTERN_PROGRAM = 1000;
/** Instructions all of one schema's patterns may compile to. */
export const MAX_SCHEMA_PROGRAM = 10_000;
/** Program instructions × characters one answer's validation may spend (~35 ms worst case). */
export const MAX_MATCH_WORK = 20_000_000;

/** A budget ran out: the schema or the answer is too large to check in bounded time. */
export class RegExpBudgetExceeded extends Error {}

let engine: typeof RE2JS | undefined;

/**
 * re2js builds its Unicode tables when it loads (about 5 ms of a cold start, several times that
 * on a busy machine), so it is loaded on first use: only instances that serve schema_validation
 * pay, once. esbuild keeps a dynamic import in the same bundle and runs the module lazily.
 */
export async function loadLinearRegExp(): Promise<void> {
  engine ??= (await import('re2js')).RE2JS;
}

/**
 * Work one schema's compilation or one answer's check may spend, opened by the caller for it:
 * a value passed down, so two checks never share or reset each other's allowance.
 */
export class RegExpBudget {
  #left: number;
  constructor(
    units: number,
    private readonly exhausted: string,
  ) {
    this.#left = units;
  }

  charge(units: number): void {
    this.#left -= units;
    if (this.#left < 0) throw new RegExpBudgetExceeded(this.exhausted);
  }
}

/** For one schema's patterns, compiled together. */
export const compileBudget = (): RegExpBudget =>
  new RegExpBudget(
    MAX_SCHEMA_PROGRAM,
    `the schema's patterns are too complex together (at most ${MAX_SCHEMA_PROGRAM} RE2 instructions)`,
  );

/** For one answer's check against a schema's patterns. */
export const matchBudget = (): RegExpBudget =>
  new RegExpBudget(MAX_MATCH_WORK, 'the answer is too long to check against these patterns');

/** A compiled pattern; each match is charged program size × text length to the budget given. */
export interface LinearPattern {
  test(text: string, budget: RegExpBudget): boolean;
}

/** Compiles a pattern (JavaScript syntax, `u` flag) on RE2, its program charged to `budget`. */
export function linearRegExp(pattern: string, budget: RegExpBudget): LinearPattern {
  if (exceedsCharacters(pattern, MAX_PATTERN_LENGTH))
    throw new Error(`a pattern may be at most ${MAX_PATTERN_LENGTH} characters long`);
  const compiled = compile(pattern);
  const size = compiled.programSize();
  if (size > MAX_PATTERN_PROGRAM)
    throw new Error(
      `pattern ${JSON.stringify(pattern)} is too complex (at most ${MAX_PATTERN_PROGRAM} RE2 instructions)`,
    );
  budget.charge(size);
  return {
    test: (text, matches) => {
      matches.charge(size * Math.max(1, text.length));
      return compiled.test(text);
    },
  };
}

function compile(pattern: string): RE2JS {
  if (!engine) throw new Error('the pattern engine is not loaded: await loadLinearRegExp() first');
  try {
    return engine.compile(engine.translateRegExp(pattern));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `pattern ${JSON.stringify(pattern)} is not supported (${reason}); ` +
        'patterns are matched with RE2 syntax: no lookaround or backreferences',
      { cause: error },
    );
  }
}
