import { ChatError } from '../chat-errors.js';
import type { GuardrailName } from '../chat-request.js';
import type { SchemaResult } from './schema-validation.js';

/** What the guardrails report (X-Guardrail-Status) and the errors they end a request with. */
export type { GuardrailName } from '../chat-request.js';

export const GUARDRAIL_NAMES: readonly GuardrailName[] = ['pii', 'content_moderation', 'schema_validation'];

export type GuardrailOutcome = 'pass' | 'redact' | 'skip';

export interface GuardrailStatus {
  guardrail: GuardrailName;
  outcome: GuardrailOutcome;
}

/** The X-Guardrail-Status value, e.g. `pii:redact,content_moderation:pass`; '' when none ran. */
export function statusHeader(statuses: readonly GuardrailStatus[]): string {
  return statuses.map((s) => `${s.guardrail}:${s.outcome}`).join(',');
}

/**
 * The whole X-Guardrail-Status for an answer: pii is `redact` if the request or the answer had
 * any; moderation got here, so it passed; schema validation reports pass or skip (a failure is
 * an error, not a status), and nothing until it ran.
 */
export function answerStatuses(
  enabled: readonly GuardrailName[],
  requestStatuses: readonly GuardrailStatus[],
  found: number,
  schema: SchemaResult | undefined,
): GuardrailStatus[] {
  const requestRedacted = requestStatuses.some((s) => s.guardrail === 'pii' && s.outcome === 'redact');
  return GUARDRAIL_NAMES.flatMap((guardrail): GuardrailStatus[] => {
    if (!enabled.includes(guardrail)) return [];
    if (guardrail === 'pii') return [{ guardrail, outcome: requestRedacted || found > 0 ? 'redact' : 'pass' }];
    if (guardrail === 'schema_validation')
      return schema ? [{ guardrail, outcome: schema.outcome === 'pass' ? 'pass' : 'skip' }] : [];
    return [{ guardrail, outcome: 'pass' }];
  });
}

/**
 * A blocked request or answer: 400 CONTENT_BLOCKED (docs/interface.md §2.2), one code for both
 * so clients handle one error; the message names the categories.
 */
export function contentBlocked(what: 'request' | 'answer', categories: readonly string[]): ChatError {
  const subject = what === 'request' ? 'The request was' : "The model's answer was";
  const named = categories.length > 0 ? ` (categories: ${categories.join(', ')})` : '';
  return new ChatError(
    'content_blocked',
    `${subject} blocked by content moderation${named}`,
    what === 'request' ? { field: 'messages' } : {},
  );
}

/**
 * An answer that breaks response_format: 400 SCHEMA_VALIDATION_FAILED (the interface's error
 * table has no code for it, docs/interface.md §7; 400 keeps the gateway's single client-error
 * status) with the first validation errors.
 */
export function schemaFailed(errors: readonly string[]): ChatError {
  const detail = errors.length > 0 ? `: ${errors.join('; ')}` : '';
  return new ChatError('schema_validation_failed', `The model's answer does not match response_format${detail}`, {
    field: 'response_format',
  });
}
