import { gunzipSync } from 'node:zlib';
import type { ChatDeps } from '../../../lambdas/chat/chat-core.js';
import { localModerator } from '../../../lambdas/chat/guardrails/moderation.js';
import { LoadBalancer } from '../../../lambdas/chat/load-balancer.js';
import type { UpstreamCaller } from '../../../lambdas/chat/router.js';
import { adapterFor } from '../../../lambdas/providers/chat-adapters.js';
import type { ChatRequest } from '../../../lambdas/providers/chat-types.js';
import type { StoredResponseBody } from '../../../lambdas/responses/response-object.js';
import {
  createResponse,
  deleteResponse,
  getResponse,
  type ResponsesDeps,
  type ResponsesResult,
} from '../../../lambdas/responses/responses-core.js';
import { ResponsesError } from '../../../lambdas/responses/responses-errors.js';
import type { ResponsesRequest } from '../../../lambdas/responses/responses-request.js';
import type { EncodedResponse, StoredResponseRef } from '../../../lambdas/store/stored-responses.js';

/**
 * The Responses core with the chat core real and the network and the table faked: what is stored
 * and when, what a continued response sends upstream, and what happens when a response cannot be
 * kept. (The HTTP, the SDK and the tenant-session reads: test/integration/responses.test.ts.)
 */

type Stored = Map<string, EncodedResponse>;
const keyOf = (ref: StoredResponseRef) => `${ref.accountId}/${ref.responseId}`;
const decoded = (body: EncodedResponse): StoredResponseBody =>
  JSON.parse('gzip' in body ? gunzipSync(body.gzip).toString() : body.json) as StoredResponseBody;

function harness(answer: (request: ChatRequest) => string = () => 'Hello.') {
  const sent: ChatRequest[] = [];
  const stored: Stored = new Map();
  let failPuts = false;
  let ids = 0;
  const upstream: UpstreamCaller = {
    complete: async (_adapter, request, target) => {
      sent.push(request);
      return {
        id: 'up',
        object: 'chat.completion',
        created: 1,
        model: target.model,
        choices: [{ index: 0, message: { role: 'assistant', content: answer(request) }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      };
    },
    stream: async () => {
      throw new Error('no streams in these tests');
    },
  };
  const chat: ChatDeps = {
    endpointsFor: () => async () => ({ baseUrl: 'http://unused', apiKey: 'k' }),
    adapterFor,
    balancer: new LoadBalancer(),
    sleep: async () => {},
    now: () => Date.parse('2026-01-01T00:00:00Z'),
    upstream,
    recordUsage: async () => {},
    readAnswer: async () => undefined,
    storeAnswer: async () => {},
    moderator: () => localModerator(),
    fetchTemplate: async () => ({ found: false, message: 'no templates in these tests' }),
    describeImages: async () => {
      throw new Error('no images in these tests');
    },
  };
  const deps: ResponsesDeps = {
    chat,
    readStored: async (ref) => {
      const body = stored.get(keyOf(ref));
      return body && decoded(body);
    },
    putStored: async (ref, body) => {
      if (failPuts) throw new Error('the table is unavailable');
      stored.set(keyOf(ref), body);
    },
    deleteStored: async (ref) => stored.delete(keyOf(ref)),
    checkImageHosts: async () => {},
    newId: (prefix) => `${prefix}_${String(++ids).padStart(4, '0')}`,
    now: () => Date.parse('2026-01-01T00:00:05Z'),
  };
  const create = async (request: Partial<ResponsesRequest>, accountId = 'acct-1') => {
    const result: ResponsesResult = await createResponse(
      {
        request: { model: 'gpt', input: 'hi', ...request },
        account: { accountId },
        requestId: 'req-1',
        route: 'responses-create',
        startedAt: new Date('2026-01-01T00:00:00Z'),
        cache: { read: false, write: false, ttlSeconds: 60 },
        guardrails: [],
        signal: new AbortController().signal,
        deadlineReached: () => false,
        defer: () => {},
      },
      deps,
    );
    if (result.kind !== 'whole') throw new Error('a stream');
    return result.response;
  };
  return {
    deps,
    sent,
    stored,
    create,
    failPuts: () => void (failPuts = true),
  };
}

/** Printable text that hardly compresses (a fixed xorshift sequence): beyond a stored item. */
function noiseOf(length: number): string {
  let x = 2463534242;
  return Array.from({ length }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return String.fromCharCode(33 + ((x >>> 0) % 89));
  }).join('');
}

async function refusal(promise: Promise<unknown>): Promise<ResponsesError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ResponsesError)) throw new Error(`expected a ResponsesError, got ${String(error)}`);
  return error;
}

test('a stored response keeps the Response as answered and its conversation, retrievable by its account', async () => {
  const { create, stored, deps } = harness();
  const response = await create({ instructions: 'Be brief.', input: 'hi', metadata: { k: 'v' } });
  expect(response).toMatchObject({ id: 'resp_0001', status: 'completed', store: true, created_at: 1767225600 });
  expect(response.completed_at).toBe(1767225605);
  const body = decoded(stored.get('acct-1/resp_0001')!);
  expect(body).toEqual({ response, conversation: [{ type: 'message', role: 'user', content: 'hi' }] });
  expect(await getResponse('acct-1', 'resp_0001', deps)).toEqual(response);
  const missing = await refusal(getResponse('acct-2', 'resp_0001', deps));
  expect([missing.kind, missing.answer.status, missing.field]).toEqual(['response_not_found', 404, undefined]);
  expect(missing.answer.field).toBe('id');
});

test('store: false keeps nothing', async () => {
  const { create, stored } = harness();
  expect(await create({ store: false })).toMatchObject({ store: false });
  expect(stored.size).toBe(0);
});

test('a chain: each response keeps the whole conversation, and sends it upstream without old instructions', async () => {
  const { create, sent, stored } = harness((request) => `answer ${request.messages.length}`);
  const first = await create({ instructions: 'Be a pirate.', input: 'one' });
  const second = await create({ previous_response_id: first.id, input: 'two' });
  const third = await create({ previous_response_id: second.id, instructions: 'Be brief.', input: 'three' });
  expect(sent.at(-1)!.messages).toEqual([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'one' },
    { role: 'assistant', content: 'answer 2' },
    { role: 'user', content: 'two' },
    { role: 'assistant', content: 'answer 3' },
    { role: 'user', content: 'three' },
  ]);
  const kept = decoded(stored.get(`acct-1/${third.id}`)!);
  expect(kept.conversation.map((item) => ('role' in item ? item.role : item.type))).toEqual([
    'user',
    'assistant',
    'user',
    'assistant',
    'user',
  ]);
});

test('previous_response_id of another account, an unknown or a malformed id: 400 naming it, and no upstream call', async () => {
  const { create, sent } = harness();
  const mine = await create({ input: 'mine' });
  const before = sent.length;
  for (const [id, account] of [
    [mine.id, 'acct-2'],
    ['resp_9999', 'acct-1'],
    ['../../etc', 'acct-1'],
  ] as const) {
    const error = await refusal(create({ previous_response_id: id, input: 'more' }, account));
    expect([error.kind, error.answer.status, error.answer.code, error.answer.field]).toEqual([
      'previous_response_not_found',
      400,
      'previous_response_not_found',
      'previous_response_id',
    ]);
  }
  expect(sent.length).toBe(before);
});

test('a conversation too large to keep is refused before the model is called, naming what to change', async () => {
  const { create, sent } = harness();
  const noise = noiseOf(600_000);
  const error = await refusal(create({ input: noise }));
  expect([error.kind, error.field]).toEqual(['invalid_request', 'input']);
  expect(sent).toHaveLength(0);
  expect(await create({ input: noise, store: false })).toMatchObject({ status: 'completed', store: false });
});

test('an answer too large to keep, or a store that fails, is still answered, as store: false', async () => {
  const noise = noiseOf(600_000);
  const large = harness(() => noise);
  expect(await large.create({ input: 'say a lot' })).toMatchObject({ status: 'completed', store: false });
  expect(large.stored.size).toBe(0);

  const failing = harness();
  failing.failPuts();
  expect(await failing.create({ input: 'hi' })).toMatchObject({ status: 'completed', store: false });
});

test('delete: the account’s own, once; then not found', async () => {
  const { create, deps } = harness();
  const response = await create({});
  expect(await deleteResponse('acct-1', response.id, deps)).toEqual({
    id: response.id,
    object: 'response',
    deleted: true,
  });
  expect((await refusal(deleteResponse('acct-1', response.id, deps))).kind).toBe('response_not_found');
  expect((await refusal(getResponse('acct-1', response.id, deps))).kind).toBe('response_not_found');
});
