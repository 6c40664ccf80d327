import { ChatError } from '../../../../lambdas/chat/chat-errors.js';
import type { Moderator, ModerationResult } from '../../../../lambdas/chat/guardrails/moderation.js';
import { statusHeader } from '../../../../lambdas/chat/guardrails/outcomes.js';
import { StreamGuard } from '../../../../lambdas/chat/guardrails/stream-guard.js';
import type { ChatCompletionChunk, ChatRequest } from '../../../../lambdas/providers/chat-types.js';

/**
 * The guard's phases: relaying → checking → passed | blocked. Which statuses it reports is a
 * function of the phase, so each transition is checked by what X-Guardrail-Status would say.
 */

const jsonRequest: ChatRequest = {
  model: 'm',
  messages: [{ role: 'user', content: 'json please' }],
  response_format: { type: 'json_object' },
};

const chunk = (content: string, finish: 'stop' | null = null): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { content }, finish_reason: finish }],
});

/** A moderator whose verdict the test gives, once it has seen what it was asked. */
function heldModerator() {
  const seen: string[][] = [];
  let answer: ((result: ModerationResult) => void) | undefined;
  let fail: ((error: unknown) => void) | undefined;
  const moderator: Moderator = {
    moderate: (texts) =>
      new Promise((resolve, reject) => {
        seen.push(texts);
        answer = resolve;
        fail = reject;
      }),
  };
  return { moderator, seen, answer: (r: ModerationResult) => answer!(r), fail: (e: unknown) => fail!(e) };
}

describe('StreamGuard phases', () => {
  test('relaying: redaction counts at once; schema and moderation report nothing yet', () => {
    const { moderator } = heldModerator();
    const guard = new StreamGuard(['pii', 'schema_validation', 'content_moderation'], jsonRequest, moderator);
    expect(guard.phase).toEqual({ name: 'relaying' });
    expect(guard.transform(chunk('{"to":"a@b.io"}', 'stop')).choices[0]!.delta.content).toBe(
      '{"to":"[REDACTED_EMAIL]"}',
    );
    expect(statusHeader(guard.statuses())).toBe('pii:redact');
  });

  test('checking: the schema result is known while moderation runs; then passed reports moderation', async () => {
    const { moderator, seen, answer } = heldModerator();
    const guard = new StreamGuard(['pii', 'schema_validation', 'content_moderation'], jsonRequest, moderator);
    guard.transform(chunk('{"to":"a@b.io"}', 'stop'));
    const checked = guard.finalCheck();
    expect(guard.phase).toEqual({ name: 'checking', schema: { outcome: 'pass' } });
    expect(statusHeader(guard.statuses())).toBe('pii:redact,schema_validation:pass');
    expect(seen).toEqual([['{"to":"[REDACTED_EMAIL]"}']]);
    answer({ flagged: false, categories: [] });
    expect(await checked).toEqual({});
    expect(guard.phase).toEqual({ name: 'passed', schema: { outcome: 'pass' } });
    expect(statusHeader(guard.statuses())).toBe('pii:redact,content_moderation:pass,schema_validation:pass');
  });

  test('blocked by moderation: the error is returned and kept; the schema result still reports', async () => {
    const { moderator, answer } = heldModerator();
    const guard = new StreamGuard(['schema_validation', 'content_moderation'], jsonRequest, moderator);
    guard.transform(chunk('{"ok":true}', 'stop'));
    const checked = guard.finalCheck();
    answer({ flagged: true, categories: ['weapons'] });
    const { error } = await checked;
    expect(error).toBeInstanceOf(ChatError);
    expect(error!.message).toBe("The model's answer was blocked by content moderation (categories: weapons)");
    expect(guard.phase).toEqual({ name: 'blocked', schema: { outcome: 'pass' }, error });
    expect(statusHeader(guard.statuses())).toBe('schema_validation:pass');
  });

  test('blocked by the schema: moderation is never asked, and neither reports a status', async () => {
    const { moderator, seen } = heldModerator();
    const guard = new StreamGuard(['schema_validation', 'content_moderation'], jsonRequest, moderator);
    guard.transform(chunk('not json', 'stop'));
    const { error } = await guard.finalCheck();
    expect(error).toMatchObject({ kind: 'schema_validation_failed', field: 'response_format' });
    expect(guard.phase).toEqual({ name: 'blocked', schema: undefined, error });
    expect(seen).toEqual([]);
    expect(guard.statuses()).toEqual([]);
  });

  test('moderation unavailable: blocked with its error, the answer not cleared', async () => {
    const { moderator, fail } = heldModerator();
    const guard = new StreamGuard(['content_moderation'], jsonRequest, moderator);
    guard.transform(chunk('hello', 'stop'));
    const checked = guard.finalCheck();
    const outage = new ChatError('dependency_unavailable', 'moderation is down');
    fail(outage);
    expect(await checked).toEqual({ error: outage });
    expect(guard.phase).toEqual({ name: 'blocked', error: outage });
    expect(guard.statuses()).toEqual([]);
  });

  test('without schema or moderation, the check passes at once and pii alone reports', async () => {
    const { moderator, seen } = heldModerator();
    const guard = new StreamGuard(['pii'], jsonRequest, moderator, {
      requestStatuses: [{ guardrail: 'pii', outcome: 'redact' }],
    });
    guard.transform(chunk('nothing personal', 'stop'));
    expect(await guard.finalCheck()).toEqual({});
    expect(guard.phase).toEqual({ name: 'passed', schema: undefined });
    expect(seen).toEqual([]);
    // The request's redaction carries over, though the answer had nothing to redact.
    expect(statusHeader(guard.statuses())).toBe('pii:redact');
  });
});
