import { createHash } from 'node:crypto';
import { listFamilies, resolveFamily } from '../catalog/model-catalog.js';
import { ChatError, isCallersFault } from './chat-errors.js';
import type { ChatMessage, ContentPart, Usage } from '../providers/chat-types.js';
import { getImageDescription, putImageDescription } from '../store/cached-image-descriptions.js';
import { routeCompletion, type RouterDeps } from './router.js';
import { planTargets } from './targets.js';
import { DEFAULT_TIMEOUT_MS } from './chat-request.js';

/**
 * Models without vision get a description in place of each image: written by a vision model,
 * cached per account by image hash (a repeated image is described once), and metered through
 * the same router (its attempts land in the request's ledger entries). Image analysis
 * (`POST /api/v1/images/analyze`) asks the same describer, with its own question if it has one.
 */
const DESCRIBE_PROMPT =
  'Describe this image for someone who cannot see it: the subject, any text in it (verbatim), ' +
  'people, objects, colours, layout and anything notable. Be factual and complete; no preamble.';

const DESCRIPTION_MAX_TOKENS = 600;
/** Retries per target: a description is worth one more try, not a long wait. */
const DESCRIBE_RETRIES = 1;

export interface DescribeContext {
  readonly accountId: string;
  readonly deps: RouterDeps;
  readonly signal: AbortSignal;
}

/** One image to describe, and how. */
export interface ImageQuestion {
  /** An http(s) URL the policy passed, or a data: URI. */
  readonly url: string;
  /** What to ask about the image. @default a full description, for a reader who cannot see it */
  readonly prompt?: string;
  /**
   * A vision model the caller chose (a name `resolveFamily` knows): only its family answers.
   * @default the describer's family, then the other vision families
   */
  readonly model?: string;
  /** The request field an unreadable image is reported under. */
  readonly field: string;
  /** False: a fresh description even when one is cached (it is stored either way). @default true */
  readonly readCache?: boolean;
  /** Per attempt. @default the chat default (60 s) */
  readonly timeoutMs?: number;
}

export interface ImageDescription {
  readonly description: string;
  /** The concrete model that wrote it. */
  readonly model: string;
  readonly provider: string;
  /** What writing it took (when cached, what it took the first time). */
  readonly usage: Usage;
  /** Read from the cache: no upstream call was made. */
  readonly cached: boolean;
}

export function hasImages(messages: readonly ChatMessage[]): boolean {
  return messages.some(
    (m) => m.role === 'user' && Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url'),
  );
}

export type DescribeImages = (messages: readonly ChatMessage[], context: DescribeContext) => Promise<ChatMessage[]>;

/** The family that describes images: the configuration's IMAGE_DESCRIBER_MODEL, else the first vision family. */
export const describerModel = (configured: string | undefined): string =>
  configured ?? listFamilies().find((f) => f.vision)!.alias;

/**
 * Replaces every image part of the messages with a text part holding its description, written
 * by `model` (the configuration's IMAGE_DESCRIBER_MODEL), else by the first vision family.
 */
export const imageDescriber =
  (model: string | undefined): DescribeImages =>
  (messages, context) =>
    describeImages(messages, context, describerModel(model));

async function describeImages(
  messages: readonly ChatMessage[],
  context: DescribeContext,
  describer: string,
): Promise<ChatMessage[]> {
  const described = new Map<string, Promise<string>>();
  const describe = (url: string) => {
    let text = described.get(url);
    if (!text) {
      const question = { url, field: 'messages' };
      described.set(url, (text = describeImage(question, describer, context).then((d) => d.description)));
    }
    return text;
  };
  return Promise.all(
    messages.map(async (message) => {
      if (message.role !== 'user' || !Array.isArray(message.content)) return message;
      const content = await Promise.all(
        message.content.map(async (part): Promise<ContentPart> =>
          part.type === 'image_url'
            ? { type: 'text', text: `[Image description: ${await describe(part.image_url.url)}]` }
            : part,
        ),
      );
      return { ...message, content };
    }),
  );
}

/**
 * One image described: from the account's cache when the same image was asked the same way
 * within 7 days, else by a vision model through the router (failing over as chat does) and then
 * cached. `describer` is the family asked when the question names none.
 */
export async function describeImage(
  question: ImageQuestion,
  describer: string,
  context: DescribeContext,
): Promise<ImageDescription> {
  const hash = descriptionHash(question);
  if (question.readCache !== false) {
    const cached = await getImageDescription(context.accountId, hash);
    // An entry from before the writer was stored cannot say who wrote it: written anew.
    if (cached?.model !== undefined) {
      return {
        description: cached.description,
        model: cached.model,
        provider: cached.provider ?? '',
        usage: tokenUsage(cached.promptTokens ?? 0, cached.completionTokens ?? 0),
        cached: true,
      };
    }
  }
  const model = question.model ?? describer;
  const fallback =
    question.model === undefined
      ? listFamilies()
          .filter((f) => f.vision && f.alias !== model)
          .map((f) => f.alias)
      : [];
  const request = {
    model,
    fallback,
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: question.prompt ?? DESCRIBE_PROMPT },
          { type: 'image_url' as const, image_url: { url: question.url } },
        ],
      },
    ],
  };
  const routed = await routeCompletion(
    {
      targets: planTargets(request, context.deps.balancer),
      upstreamRequest: (target) => ({
        model: target.model,
        messages: request.messages,
        max_tokens: DESCRIPTION_MAX_TOKENS,
      }),
      retries: DESCRIBE_RETRIES,
      timeoutMs: question.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: context.signal,
    },
    context.deps,
  ).catch((error: unknown) => {
    throw isCallersFault(error)
      ? new ChatError('invalid_request', `${question.field}: the image could not be read: ${error.message}`, {
          field: question.field,
        })
      : error;
  });
  const { completion, target } = routed;
  const description = completion.choices[0]?.message.content?.trim() || 'no description available';
  const usage = tokenUsage(completion.usage.prompt_tokens, completion.usage.completion_tokens);
  await putImageDescription(context.accountId, hash, {
    description,
    model: target.model,
    provider: target.provider,
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
  });
  return { description, model: target.model, provider: target.provider, usage, cached: false };
}

/** The three counts callers read, the same fresh or cached (provider details are not kept). */
const tokenUsage = (promptTokens: number, completionTokens: number): Usage => ({
  prompt_tokens: promptTokens,
  completion_tokens: completionTokens,
  total_tokens: promptTokens + completionTokens,
});

/**
 * The cache key: the image alone for the describer's own question (as chat has always keyed
 * it, so chat and image analysis share those descriptions), else the image with the question
 * and the chosen family, since either changes the answer.
 */
function descriptionHash(question: ImageQuestion): string {
  const family = question.model === undefined ? undefined : resolveFamily(question.model)?.alias;
  const keyed =
    question.prompt === undefined && family === undefined
      ? question.url
      : JSON.stringify([question.url, question.prompt ?? null, family ?? null]);
  return createHash('sha256').update(keyed).digest('base64url');
}
