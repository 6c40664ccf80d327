import { chatRequestSchema, chatRequestValidator, type GatewayChatRequest } from '../chat/chat-request.js';
import { compileConditional, eitherForm } from '../schema/compile.js';
import { chatModeProperties, singleModelRequest, type ArenaRequestBody } from './arena-request.js';

/**
 * POST /api/v1/chat/completions takes two bodies (docs/interface.md §2.2, §9.3): the OpenAI
 * request, and the ChatRequest of the chat modes (§4.3) as the legacy route's `chat` mode takes
 * it, so that moving from POST /api/chat means changing the path and dropping `mode`, as §9.3
 * promises. A body with `message` is the ChatRequest (the OpenAI request has no such field);
 * any other body is the OpenAI request.
 */

/** The ChatRequest in chat mode: one model, `message` and earlier turns; `mode` may say `chat`. */
export interface ChatModeChatBody extends ArenaRequestBody {
  readonly model: string;
  readonly mode?: 'chat';
}

export const chatModeChatSchema = {
  type: 'object',
  required: ['message', 'model'],
  properties: {
    ...chatModeProperties,
    mode: {
      enum: ['chat'],
      'x-message': { enum: 'must be chat, or left out: battle and fight are POST /api/v1/battle and /api/v1/fight' },
    },
  },
};

const chatModeChatValidator = compileConditional<ChatModeChatBody>(chatModeChatSchema);

/**
 * The two forms, as the OpenAPI document shows them: exclusive, as `isChatModeBody` tells them
 * apart (the OpenAI form has no `message`, which a generated client types as `message?: never`).
 */
export const chatCompletionsBodySchema = {
  oneOf: [
    { ...chatRequestSchema, properties: { ...chatRequestSchema.properties, message: false } },
    chatModeChatSchema,
  ],
};

const isChatModeBody = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'message');

export const chatCompletionsBodyValidator = eitherForm({
  first: chatRequestValidator,
  second: chatModeChatValidator,
  isSecond: isChatModeBody,
  schema: chatCompletionsBodySchema,
});

/**
 * The gateway request either form asks for. The ChatRequest keeps its own defaults (`stream`
 * true, §4.3), exactly as the legacy route's `chat` mode reads it.
 */
export const gatewayRequestOf = (body: GatewayChatRequest | ChatModeChatBody): GatewayChatRequest =>
  'message' in body ? singleModelRequest(body) : body;
