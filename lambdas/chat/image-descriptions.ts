import { createHash } from 'node:crypto';
import { listFamilies } from '../catalog/model-catalog.js';
import { ChatError, isCallersFault } from './chat-errors.js';
import type { ChatMessage, ContentPart } from '../providers/chat-types.js';
import { getImageDescription, putImageDescription } from '../store/cached-image-descriptions.js';
import { routeCompletion, type RouterDeps } from './router.js';
import { planTargets } from './targets.js';
import { DEFAULT_TIMEOUT_MS } from './chat-request.js';

/**
 * Models without vision get a description in place of each image: written by a vision model,
 * cached per account by image hash (a repeated image is described once), and metered through
 * the same router (its attempts land in the request's ledger entries).
 */
const DESCRIBE_PROMPT =
  'Describe this image for someone who cannot see it: the subject, any text in it (verbatim), ' +
  'people, objects, colours, layout and anything notable. Be factual and complete; no preamble.';

export interface DescribeContext {
  readonly accountId: string;
  readonly deps: RouterDeps;
  readonly signal: AbortSignal;
}

export function hasImages(messages: readonly ChatMessage[]): boolean {
  return messages.some(
    (m) => m.role === 'user' && Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url'),
  );
}

export type DescribeImages = (messages: readonly ChatMessage[], context: DescribeContext) => Promise<ChatMessage[]>;

/**
 * Replaces every image part of the messages with a text part holding its description, written
 * by `model` (the configuration's IMAGE_DESCRIBER_MODEL), else by the first vision family.
 */
export const imageDescriber =
  (model: string | undefined): DescribeImages =>
  (messages, context) =>
    describeImages(messages, context, model ?? listFamilies().find((f) => f.vision)!.alias);

async function describeImages(
  messages: readonly ChatMessage[],
  context: DescribeContext,
  model: string,
): Promise<ChatMessage[]> {
  const described = new Map<string, Promise<string>>();
  const describe = (url: string) => {
    let text = described.get(url);
    if (!text) described.set(url, (text = descriptionOf(url, model, context)));
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

async function descriptionOf(url: string, model: string, context: DescribeContext): Promise<string> {
  const hash = createHash('sha256').update(url).digest('base64url');
  const cached = await getImageDescription(context.accountId, hash);
  if (cached) return cached;
  const fallback = listFamilies()
    .filter((f) => f.vision && f.alias !== model)
    .map((f) => f.alias);
  const request = {
    model,
    fallback,
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: DESCRIBE_PROMPT },
          { type: 'image_url' as const, image_url: { url } },
        ],
      },
    ],
  };
  const routed = await routeCompletion(
    {
      targets: planTargets(request, context.deps.balancer),
      upstreamRequest: (target) => ({ model: target.model, messages: request.messages, max_tokens: 600 }),
      retries: 1,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      signal: context.signal,
    },
    context.deps,
  ).catch((error: unknown) => {
    throw isCallersFault(error)
      ? new ChatError('invalid_request', `An image could not be read: ${error.message}`, { field: 'messages' })
      : error;
  });
  const description = routed.completion.choices[0]?.message.content?.trim() || 'no description available';
  await putImageDescription(context.accountId, hash, description);
  return description;
}
