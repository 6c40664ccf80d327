import { jest } from '@jest/globals';
import { applyPrompt } from '../../../../lambdas/chat/prompts/apply-prompt.js';
import { ChatError } from '../../../../lambdas/chat/chat-errors.js';
import type { ChatMessage } from '../../../../lambdas/providers/chat-types.js';
import {
  PromptServiceError,
  type FetchTemplate,
  type FetchTemplateResult,
} from '../../../../lambdas/chat/prompts/prompt-service-client.js';
import type { PromptTemplate } from '../../../../lambdas/chat/prompts/prompt-template.js';

const TEMPLATE: PromptTemplate = {
  id: 'support-reply',
  version: 2,
  labels: ['production'],
  messages: [{ role: 'system', content: 'Be {{tone}} with {{customer_name}}.' }],
  variables: [
    { name: 'customer_name', required: true },
    { name: 'tone', required: false, default: 'friendly' },
  ],
};
const messages: ChatMessage[] = [{ role: 'user', content: 'My order is late' }];
const signal = new AbortController().signal;

function deps(answer: FetchTemplateResult | Error) {
  const fetchTemplate = jest.fn<FetchTemplate>(async () => {
    if (answer instanceof Error) throw answer;
    return answer;
  });
  return { fetchTemplate };
}
const found = deps({ found: true, template: TEMPLATE });

async function httpErrorOf(promise: Promise<unknown>): Promise<ChatError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChatError);
  return error as ChatError;
}

beforeEach(() => found.fetchTemplate.mockClear());

describe('applyPrompt', () => {
  test('without prompt_id the messages pass unchanged and nothing is fetched', async () => {
    expect(await applyPrompt({ messages }, found, signal)).toBe(messages);
    expect(found.fetchTemplate).not.toHaveBeenCalled();
  });

  test('prompt_version or prompt_variables without prompt_id are 400s on prompt_id', async () => {
    for (const request of [
      { messages, prompt_version: 2 },
      { messages, prompt_variables: { a: 1 } },
    ]) {
      const error = await httpErrorOf(applyPrompt(request, found, signal));
      expect(error).toMatchObject({ kind: 'invalid_request', field: 'prompt_id' });
    }
  });

  test('renders the template and puts it before the conversation', async () => {
    const result = await applyPrompt(
      { messages, prompt_id: 'support-reply', prompt_variables: { customer_name: 'Ada' } },
      found,
      signal,
    );
    expect(result).toEqual([{ role: 'system', content: 'Be friendly with Ada.' }, ...messages]);
    expect(found.fetchTemplate).toHaveBeenCalledWith({ id: 'support-reply' }, signal);
  });

  test('asks for the pinned version when one is given', async () => {
    await applyPrompt(
      { messages, prompt_id: 'support-reply', prompt_version: 1, prompt_variables: { customer_name: 'A' } },
      found,
      signal,
    );
    expect(found.fetchTemplate).toHaveBeenCalledWith({ id: 'support-reply', version: 1 }, signal);
  });

  test('missing variables are a 400 on prompt_variables', async () => {
    const error = await httpErrorOf(applyPrompt({ messages, prompt_id: 'support-reply' }, found, signal));
    expect(error).toMatchObject({
      kind: 'invalid_request',
      field: 'prompt_variables',
      message: 'prompt_variables: missing required variables: customer_name',
    });
  });

  test('an unknown template is a 400 on prompt_id, an unknown pinned version on prompt_version', async () => {
    const missing = deps({ found: false, message: 'not found' });
    expect(await httpErrorOf(applyPrompt({ messages, prompt_id: 'nope' }, missing, signal))).toMatchObject({
      kind: 'invalid_request',
      field: 'prompt_id',
      message: expect.stringContaining("unknown prompt 'nope'"),
    });
    expect(
      await httpErrorOf(applyPrompt({ messages, prompt_id: 'nope', prompt_version: 7 }, missing, signal)),
    ).toMatchObject({
      kind: 'invalid_request',
      field: 'prompt_version',
      message: "unknown prompt 'nope' version 7",
    });
  });

  test('an unavailable or misconfigured service is a 503 that does not leak the reason', async () => {
    for (const kind of ['unavailable', 'config'] as const) {
      const failing = deps(new PromptServiceError(kind, 'secret detail from the service', 401));
      const error = await httpErrorOf(applyPrompt({ messages, prompt_id: 'support-reply' }, failing, signal));
      expect(error).toMatchObject({ kind: 'dependency_unavailable' });
      expect(error.message).not.toContain('secret detail');
    }
  });

  test("other errors (the caller's abort) pass through untouched", async () => {
    const reason = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
    await expect(applyPrompt({ messages, prompt_id: 'x' }, deps(reason), signal)).rejects.toBe(reason);
  });
});
