/**
 * The one shape of a domain's failures. A core throws its domain's error (a kind, a message,
 * the field at fault, a retry delay); the domain says once, in a table, how HTTP answers each
 * kind; and only the response writer (lambdas/http/response-writer.ts) reads that table. Cores
 * therefore know no status codes or headers, and no adapter catches and maps.
 */

/** How HTTP answers one kind of a domain's errors (docs/interface.md §7). */
export interface ErrorAnswer {
  readonly status: number;
  readonly code: string;
  /** A fixed text in place of the error's message (a 503 tells no upstream internals). */
  readonly message?: string;
  /** Put before the error's message (what an upstream's own refusal is about). */
  readonly messagePrefix?: string;
  /** The field the answer names when the error names none. */
  readonly field?: string;
  /**
   * The answer carries `Retry-After`: the error's own delay, else `defaultMs`; with `inMessage`
   * the message also ends `; retry after N s`. Without this, no kind's answer has the header.
   */
  readonly retryAfter?: { readonly defaultMs?: number; readonly inMessage?: boolean };
}

/** Every kind of a domain, answered. */
export type ErrorAnswers<Kind extends string> = { readonly [K in Kind]: ErrorAnswer };

export interface DomainErrorDetails {
  /** The request field at fault: callers fix their input by it. */
  readonly field?: string;
  /** How long to wait before trying again, when the failure says (milliseconds). */
  readonly retryAfterMs?: number;
  readonly cause?: unknown;
}

export abstract class DomainError<
  Kind extends string = string,
  Details extends DomainErrorDetails = DomainErrorDetails,
> extends Error {
  /** The domain's table, the same object for every error of the domain. */
  abstract readonly answers: ErrorAnswers<Kind>;
  readonly field?: string;
  readonly retryAfterMs?: number;

  constructor(
    readonly kind: Kind,
    message: string,
    readonly details: Details,
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    if (details.field !== undefined) this.field = details.field;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }

  /** How HTTP answers this error. */
  get answer(): ErrorAnswer {
    return this.answers[this.kind];
  }
}

/**
 * The usual domain error class: `class SearchError extends domainErrorClass('SearchError',
 * SEARCH_ERROR_ANSWERS) {}`, thrown as `new SearchError(kind, message, { field })`.
 */
export function domainErrorClass<Kind extends string>(name: string, answers: ErrorAnswers<Kind>) {
  return class extends DomainError<Kind> {
    readonly answers = answers;

    constructor(kind: Kind, message: string, details: DomainErrorDetails = {}) {
      super(kind, message, details);
      this.name = name;
    }
  };
}

/** A wait as `Retry-After` gives it: whole seconds, rounded up, at least 1. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
