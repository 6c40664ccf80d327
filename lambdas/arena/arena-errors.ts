/**
 * Why an arena request was refused, in the arena's terms: no status codes. The HTTP layer
 * (lambdas/arena/arena-error-mapping.ts) maps each kind to a status and code. Failures of one agent
 * during a session are never thrown: they are events, and the session goes on.
 */
export type ArenaErrorKind =
  /** The caller's input is wrong; `field` names what to fix. */
  | 'invalid_request'
  /** Fight answers only as a stream (docs/interface.md §4.3: `stream:false` is refused). */
  | 'streaming_required'
  /** Not one agent could answer a battle that had to answer as one JSON body. */
  | 'no_answer';

export class ArenaError extends Error {
  constructor(
    readonly kind: ArenaErrorKind,
    message: string,
    readonly field?: string,
    /** The agents' failure codes, when every agent failed (the HTTP layer picks a status from them). */
    readonly causes: readonly string[] = [],
  ) {
    super(message);
    this.name = 'ArenaError';
  }
}

export const invalidArenaRequest = (field: string, message: string): ArenaError =>
  new ArenaError('invalid_request', message, field);
