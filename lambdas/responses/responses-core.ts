/**
 * The Responses API's core: a Responses request through the chat core, and the stored
 * responses it keeps. It knows no HTTP; lambdas/responses/responses-call.ts translates.
 *
 *   createResponse(input, deps): Promise<ResponsesResult>
 *     the previous response (if named) read back, the request translated into the gateway's
 *     chat request (responses-translation.ts), run by `chatCompletion` exactly as chat
 *     completions runs it (routing, fallback, cache, guardrails, provider keys, budgets,
 *     metering), and its answer translated back: a Response, or the Responses event stream.
 *     A stored response is written before the caller hears it ended.
 *   getResponse / deleteResponse: the caller's own stored responses.
 */
import { chatCompletion, type ChatDeps, type ChatInput, type ChatRouting } from '../chat/chat-core.js';
import type { ImageField } from '../chat/chat-request-checks.js';
import type { GatewayChatRequest } from '../chat/chat-request.js';
import { effectiveTemperature } from '../chat/upstream-request.js';
import { logger } from '../config/logger.js';
import {
  encodeStoredResponse,
  MAX_STORED_RESPONSE_BYTES,
  type EncodedResponse,
  type StoredResponseRef,
} from '../store/stored-responses.js';
import type { ResponseObject, StoredResponseBody } from './response-object.js';
import { ResponsesError, invalidResponsesRequest } from './responses-errors.js';
import type { InputItem, ResponsesRequest } from './responses-request.js';
import { responseEvents, type ResponseEvent } from './responses-stream.js';
import {
  chatRequestOf,
  outputAsInput,
  responseOf,
  responseShellOf,
  type ItemIds,
  type Origin,
  type ResponseShell,
} from './responses-translation.js';

export interface ResponsesDeps {
  readonly chat: ChatDeps;
  /** The account's stored response body, or undefined (unknown, expired, deleted, another account's). */
  readStored(ref: StoredResponseRef): Promise<unknown>;
  putStored(ref: StoredResponseRef, body: EncodedResponse): Promise<void>;
  /** Deletes the account's stored response: false when there was none. */
  deleteStored(ref: StoredResponseRef): Promise<boolean>;
  /** The caller-URL policy's host check of the image parts (chat's), naming the caller's fields. */
  checkImageHosts(request: GatewayChatRequest, fieldOf: ImageField): Promise<void>;
  /** A fresh id with this prefix: `resp_…`, `msg_…`, `fc_…`, `call_…`. */
  newId(prefix: 'resp' | 'msg' | 'fc' | 'call'): string;
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Everything the chat core takes but the request, and the Responses request itself. */
export interface ResponsesInput extends Omit<ChatInput, 'request'> {
  readonly request: ResponsesRequest;
}

export type ResponsesResult =
  | {
      readonly kind: 'whole';
      readonly response: ResponseObject;
      readonly routing: ChatRouting;
      readonly cache: 'HIT' | 'MISS' | 'BYPASS';
      readonly guardrailStatus: string;
    }
  | {
      readonly kind: 'stream';
      readonly events: AsyncIterable<ResponseEvent>;
      readonly routing: ChatRouting;
      readonly guardrailStatus: string;
    };

/** Ids of responses this gateway makes (and the longest any caller may name). */
const RESPONSE_ID = /^resp_[A-Za-z0-9]{1,100}$/;

export async function createResponse(input: ResponsesInput, deps: ResponsesDeps): Promise<ResponsesResult> {
  const { request } = input;
  const { accountId } = input.account;
  const history = await historyOf(request, accountId, deps);
  const translated = chatRequestOf(request, history);
  await deps.checkImageHosts(translated.chat, imageFieldOf(translated.origins));
  const store = request.store !== false;
  const conversation = [...history, ...translated.items];
  if (store) checkStorable(conversation, request);

  const result = await chatCompletion({ ...input, request: translated.chat }, deps.chat);
  const shell: ResponseShell = {
    id: deps.newId('resp'),
    createdAt: Math.floor(input.startedAt.getTime() / 1000),
    model: result.routing.model,
    request,
    temperature: effectiveTemperature(translated.chat),
    store,
  };
  const ids: ItemIds = (prefix) => deps.newId(prefix);
  const nowSeconds = () => Math.floor(deps.now() / 1000);
  const end = (response: ResponseObject) => kept(response, { accountId, conversation, store }, deps);
  if (result.kind === 'stream') {
    const events = responseEvents(result.chunks, {
      shell: responseShellOf(shell),
      ids,
      nowSeconds,
      end,
      signal: input.signal,
    });
    return { kind: 'stream', events, routing: result.routing, guardrailStatus: result.guardrailStatus };
  }
  const response = await end(responseOf(shell, result.completion, ids, nowSeconds()));
  return {
    kind: 'whole',
    response,
    routing: result.routing,
    cache: result.cache,
    guardrailStatus: result.guardrailStatus,
  };
}

/** The caller's own stored response, as it was answered. */
export async function getResponse(accountId: string, responseId: string, deps: ResponsesDeps): Promise<ResponseObject> {
  const stored = RESPONSE_ID.test(responseId) ? await deps.readStored({ accountId, responseId }) : undefined;
  if (!stored) throw responseNotFound(responseId);
  return (stored as StoredResponseBody).response;
}

/** Deletes the caller's own stored response; OpenAI's answer to a delete. */
export async function deleteResponse(
  accountId: string,
  responseId: string,
  deps: ResponsesDeps,
): Promise<{ id: string; object: 'response'; deleted: true }> {
  const deleted = RESPONSE_ID.test(responseId) && (await deps.deleteStored({ accountId, responseId }));
  if (!deleted) throw responseNotFound(responseId);
  return { id: responseId, object: 'response', deleted: true };
}

const responseNotFound = (responseId: string) =>
  new ResponsesError('response_not_found', `No response with id ${quoted(responseId)} (or it has expired)`);

const quoted = (id: string) => JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id);

/**
 * The conversation `previous_response_id` continues: that response's input items (its own
 * chain's included) and its output. Its instructions are not carried over (as OpenAI's are not).
 */
async function historyOf(request: ResponsesRequest, accountId: string, deps: ResponsesDeps): Promise<InputItem[]> {
  const previousId = request.previous_response_id;
  if (previousId == null) return [];
  const stored = RESPONSE_ID.test(previousId)
    ? ((await deps.readStored({ accountId, responseId: previousId })) as StoredResponseBody | undefined)
    : undefined;
  if (!stored)
    throw new ResponsesError(
      'previous_response_not_found',
      `previous_response_id: no stored response with id ${quoted(previousId)} (it may have expired, been deleted, or been made with store: false)`,
    );
  return [...stored.conversation, ...outputAsInput(stored.response.output)];
}

/**
 * A stored response keeps its whole conversation in one item: one that could not be kept is
 * refused before the model is paid for, not after. The answer itself may still not fit; then
 * the response is answered with `store: false` (kept()).
 */
function checkStorable(conversation: readonly InputItem[], request: ResponsesRequest): void {
  if (encodeStoredResponse({ conversation })) return;
  const field = request.previous_response_id != null ? 'previous_response_id' : 'input';
  throw invalidResponsesRequest(
    field,
    `${field}: the conversation is too large to store (${MAX_STORED_RESPONSE_BYTES / 1024} KB compressed at most); ` +
      'send store: false with the whole conversation as input instead of chaining',
  );
}

interface Keeping {
  readonly accountId: string;
  readonly conversation: readonly InputItem[];
  readonly store: boolean;
}

/**
 * The ended response, stored when asked. A response that cannot be stored (too large, or the
 * store failed) is still answered, as `store: false`: the model was already paid for.
 */
async function kept(response: ResponseObject, keeping: Keeping, deps: ResponsesDeps): Promise<ResponseObject> {
  if (!keeping.store) return response;
  const body: StoredResponseBody = { response, conversation: [...keeping.conversation] };
  const encoded = encodeStoredResponse(body);
  if (!encoded) {
    logger.warn('response too large to store', { responseId: response.id });
    return { ...response, store: false };
  }
  try {
    await deps.putStored({ accountId: keeping.accountId, responseId: response.id }, encoded);
    return response;
  } catch (error) {
    logger.error('response could not be stored', {
      responseId: response.id,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    return { ...response, store: false };
  }
}

/** An image part of a translated message, named as the caller sent it. */
const imageFieldOf =
  (origins: readonly Origin[]): ImageField =>
  (message, part) => {
    const origin = origins[message] ?? 'input';
    return origin === 'previous_response_id' ? origin : `${origin}.content[${part}].image_url`;
  };
