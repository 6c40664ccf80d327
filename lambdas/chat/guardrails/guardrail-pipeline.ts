import { invalidRequest } from '../chat-errors.js';
import type { ChatCompletion, ChatMessage, ChatRequest, ContentPart, ToolCall } from '../../providers/chat-types.js';
import type { Moderator } from './moderation.js';
import {
  answerStatuses,
  contentBlocked,
  GUARDRAIL_NAMES,
  schemaFailed,
  type GuardrailName,
  type GuardrailStatus,
} from './outcomes.js';
import { redactPii } from './pii.js';
import { responseFormatSchemaError, validateAnswer, type SchemaResult } from './schema-validation.js';

/**
 * The guardrails the gateway applies around one chat completion (docs/interface.md §2.2, §4.2):
 * `pii` redacts PII in the request and the answer; `content_moderation` blocks dangerous
 * requests and answers with a 400 CONTENT_BLOCKED; `schema_validation` checks the answer against
 * `response_format` and fails with a 400 SCHEMA_VALIDATION_FAILED. Streams: see stream-guard.ts.
 */

/**
 * The body's `guardrails.enabled` and the X-Guardrails header together (union, in canonical
 * order). Header names are trimmed and case-insensitive; `-` is read as `_`.
 */
export function parseGuardrails(
  bodyValue: { enabled: readonly string[] } | undefined,
  header: string | undefined,
): GuardrailName[] {
  const wanted = new Set<string>();
  for (const name of bodyValue?.enabled ?? []) {
    if (!isGuardrail(name))
      throw invalidRequest(
        'guardrails.enabled',
        `guardrails.enabled: unknown guardrail "${name}"; use ${GUARDRAIL_NAMES.join(', ')}`,
      );
    wanted.add(name);
  }
  for (const raw of (header ?? '').split(',')) {
    const name = raw.trim().toLowerCase().replaceAll('-', '_');
    if (name === '') continue;
    if (!isGuardrail(name))
      throw invalidRequest(
        'X-Guardrails',
        `X-Guardrails: unknown guardrail "${raw.trim()}"; use ${GUARDRAIL_NAMES.join(', ')}`,
      );
    wanted.add(name);
  }
  return GUARDRAIL_NAMES.filter((name) => wanted.has(name));
}

const isGuardrail = (name: string): name is GuardrailName => (GUARDRAIL_NAMES as readonly string[]).includes(name);

/**
 * Before the model is called. PII is redacted first, so no PII reaches the model or an external
 * moderation engine. Moderation reads what the caller wrote: system, developer and user text
 * (not earlier assistant turns or tool results, which the caller did not author; not images).
 * With schema_validation, an unusable response_format schema is a 400 now, not after paying for
 * an answer.
 */
export async function guardRequest(
  request: ChatRequest,
  enabled: readonly GuardrailName[],
  moderator: Moderator,
  signal: AbortSignal,
): Promise<{ request: ChatRequest; statuses: GuardrailStatus[] }> {
  const statuses: GuardrailStatus[] = [];
  let guarded = request;
  if (enabled.includes('pii')) {
    const pii = countingRedactor();
    guarded = { ...request, messages: request.messages.map((message) => redactMessage(message, pii.redact)) };
    statuses.push({ guardrail: 'pii', outcome: pii.found() > 0 ? 'redact' : 'pass' });
  }
  if (enabled.includes('content_moderation')) {
    const texts = guarded.messages
      .filter((m) => m.role === 'system' || m.role === 'developer' || m.role === 'user')
      .flatMap((m) => textsOf(m.content));
    const result = await moderator.moderate(texts, signal, 'input');
    if (result.flagged) throw contentBlocked('request', result.categories);
    statuses.push({ guardrail: 'content_moderation', outcome: 'pass' });
  }
  if (enabled.includes('schema_validation')) {
    const problem = await responseFormatSchemaError(request.response_format);
    if (problem)
      throw invalidRequest('response_format.json_schema.schema', `response_format.json_schema.schema: ${problem}`);
  }
  return { request: guarded, statuses };
}

/**
 * After a non-streamed answer. Order: schema validation checks the model's own output (before
 * redaction, which may legitimately change string values a schema constrains); then PII is
 * redacted in content and tool-call arguments; then the redacted answer is moderated. A flagged
 * answer is not returned at all: 400 CONTENT_BLOCKED (docs/interface.md §2.2), the same code as
 * a blocked request, so clients handle one error. The returned statuses are the whole
 * X-Guardrail-Status: the request's pii outcome is merged (redact wins).
 */
export async function guardAnswer(
  completion: ChatCompletion,
  enabled: readonly GuardrailName[],
  request: ChatRequest,
  moderator: Moderator,
  signal: AbortSignal,
  requestStatuses: readonly GuardrailStatus[] = [],
): Promise<{ completion: ChatCompletion; statuses: GuardrailStatus[] }> {
  let schema: SchemaResult | undefined;
  if (enabled.includes('schema_validation')) {
    const results = completion.choices.map((c) =>
      validateAnswer(
        { content: c.message.content, hasToolCalls: !!c.message.tool_calls?.length },
        request.response_format,
      ),
    );
    const failed = results.find((r) => r.outcome === 'fail');
    if (failed) throw schemaFailed(failed.errors ?? []);
    schema = results.find((r) => r.outcome === 'pass') ?? { outcome: 'skip' };
  }
  let guarded = completion;
  const pii = countingRedactor();
  if (enabled.includes('pii')) {
    guarded = {
      ...completion,
      choices: completion.choices.map((choice) => ({
        ...choice,
        message: {
          ...choice.message,
          content: choice.message.content === null ? null : pii.redact(choice.message.content),
          ...(choice.message.tool_calls ? { tool_calls: redactToolCalls(choice.message.tool_calls, pii.redact) } : {}),
        },
      })),
    };
  }
  if (enabled.includes('content_moderation')) {
    const texts = guarded.choices.flatMap((c) => [
      c.message.content ?? '',
      ...(c.message.tool_calls ?? []).map((t) => t.function.arguments),
    ]);
    const result = await moderator.moderate(texts, signal, 'output');
    if (result.flagged) throw contentBlocked('answer', result.categories);
  }
  return { completion: guarded, statuses: answerStatuses(enabled, requestStatuses, pii.found(), schema) };
}

type Redact = (text: string) => string;

/** redactPii that keeps count, for the pii status. */
function countingRedactor() {
  let found = 0;
  const redact: Redact = (text) => {
    const result = redactPii(text);
    found += result.found;
    return result.text;
  };
  return { redact, found: () => found };
}

function redactMessage(message: ChatMessage, redact: Redact): ChatMessage {
  if (message.role !== 'assistant')
    return { ...message, content: redactContent(message.content, redact) } as ChatMessage;
  return {
    ...message,
    ...(message.content !== undefined ? { content: redactContent(message.content, redact) } : {}),
    ...(message.tool_calls ? { tool_calls: redactToolCalls(message.tool_calls, redact) } : {}),
  };
}

/**
 * Arguments are JSON text, redacted as text: tokens land inside JSON strings and escapes stay
 * whole, so the JSON stays valid; a card written as a bare JSON number would not (rare).
 */
const redactToolCalls = (calls: readonly ToolCall[], redact: Redact): ToolCall[] =>
  calls.map((call) => ({ ...call, function: { ...call.function, arguments: redact(call.function.arguments) } }));

/** Text parts are redacted; image parts pass untouched. */
function redactContent<C extends string | readonly ContentPart[] | null>(content: C, redact: Redact): C {
  if (typeof content === 'string') return redact(content) as C;
  if (Array.isArray(content))
    return content.map((part: ContentPart) =>
      part.type === 'text' ? { ...part, text: redact(part.text) } : part,
    ) as unknown as C;
  return content;
}

function textsOf(content: string | readonly ContentPart[] | null | undefined): string[] {
  if (typeof content === 'string') return [content];
  return (content ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : []));
}
