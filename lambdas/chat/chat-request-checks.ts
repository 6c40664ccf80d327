import { invalidRequest } from './chat-errors.js';
import { findJsonViolation } from '../schema/json-limits.js';
import {
  checkPublicUrl,
  findPrivateResolution,
  PUBLIC_URL_RULE,
  refusalText,
  type LookupOptions,
  type NamedHost,
} from '../schema/public-url.js';
import type { GatewayChatRequest } from './chat-request.js';

/**
 * What JSON Schema validation of the body cannot say: limits on the caller's own schemas,
 * agreement between fields, and whether image URLs are public. Run before anything walks the
 * request. Limits are documented in
 * README.md (chat completions).
 */
export const MAX_SCHEMA_DEPTH = 64;
export const MAX_SCHEMA_NODES = 10_000;
/**
 * Image parts in one request, `data:` URIs included. Each URL is parsed and judged by the
 * caller-URL policy, twice (here and before the upstream call, with its host resolved); without
 * a count of their own, a 6 MB body of short image parts held the loop about 100 ms each time.
 * OpenAI documents 500 images per request as its own ceiling.
 */
export const MAX_IMAGE_PARTS = 500;

export function checkChatRequest(request: GatewayChatRequest): void {
  request.tools?.forEach((tool, i) => {
    if (tool.function.parameters) checkSchema(tool.function.parameters, `tools[${i}].function.parameters`);
  });
  const format = request.response_format;
  if (format?.type === 'json_schema' && format.json_schema.schema)
    checkSchema(format.json_schema.schema, 'response_format.json_schema.schema');
  checkToolChoice(request);
  let images = 0;
  for (const image of imageUrls(request)) {
    if (++images > MAX_IMAGE_PARTS)
      throw invalidRequest('messages', `messages: at most ${MAX_IMAGE_PARTS} image parts are allowed in one request`);
    checkImageUrl(image);
  }
}

/** A caller's JSON Schema (a tool's parameters, a response format) within the limits, or a 400 naming `field`. */
export function checkSchema(schema: Record<string, unknown>, field: string): void {
  const violation = findJsonViolation(schema, { maxDepth: MAX_SCHEMA_DEPTH, maxNodes: MAX_SCHEMA_NODES });
  if (!violation) return;
  switch (violation.kind) {
    case 'depth':
      throw invalidRequest(field, `${field}: nests too deep; a schema may nest at most ${MAX_SCHEMA_DEPTH} levels`);
    case 'nodes':
      throw invalidRequest(field, `${field}: is too large; a schema may hold at most ${MAX_SCHEMA_NODES} JSON values`);
    case 'number':
      throw invalidRequest(field, `${field}: must hold only finite numbers`);
  }
}

/** A forced tool must be one of `tools`; providers would refuse it later, some with a 500. */
function checkToolChoice(request: GatewayChatRequest): void {
  const choice = request.tool_choice;
  const names = (request.tools ?? []).map((tool) => tool.function.name);
  if (choice === 'required' && names.length === 0)
    throw invalidRequest('tool_choice', 'tool_choice: "required" needs at least one tool in tools');
  if (typeof choice === 'object' && !names.includes(choice.function.name))
    throw invalidRequest(
      'tool_choice.function.name',
      `tool_choice.function.name: "${choice.function.name}" is not the name of a function in tools`,
    );
}

interface ImageUrl {
  readonly field: string;
  readonly url: string;
}

/** How a refusal names an image part's URL, by its message's and its part's index. */
export type ImageField = (message: number, part: number) => string;

const chatImageField: ImageField = (i, j) => `messages[${i}].content[${j}].image_url.url`;

function* imageUrls(request: GatewayChatRequest, fieldOf: ImageField = chatImageField): Generator<ImageUrl> {
  for (const [i, message] of request.messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [j, part] of message.content.entries()) {
      if (part.type === 'image_url') yield { field: fieldOf(i, j), url: part.image_url.url };
    }
  }
}

const IMAGE_URL_RULE = `${PUBLIC_URL_RULE} or a data: URI`;

/**
 * An image part's URL: a data: URI is the image itself, passed on as before (each provider
 * reads the media types it takes); anything else is fetched by the model's provider, so it
 * must pass the caller-URL policy (lambdas/schema/public-url.ts). Answers the host name to
 * resolve, if the URL has one.
 */
function checkImageUrl({ field, url }: ImageUrl): string | undefined {
  if (/^data:/i.test(url)) return undefined;
  const check = checkPublicUrl(url);
  if (!check.ok) throw invalidRequest(field, `${field}: ${refusalText(IMAGE_URL_RULE, check.reason)}`);
  return check.name;
}

/**
 * The caller-URL policy's second step for the image parts, once per request before any
 * upstream call (the arena's turns, which repeat its one image, are checked at its start): the
 * URLs' host names resolved, and the first part whose name resolves to an address that is not
 * public refused, naming it. Runs the static checks of the parts first. `fieldOf` names a part
 * as the caller sent it, when the chat request was translated from another (the Responses API).
 */
export async function checkChatImageHosts(
  request: GatewayChatRequest,
  options: LookupOptions = {},
  fieldOf?: ImageField,
): Promise<void> {
  const hosts: NamedHost[] = [];
  for (const image of imageUrls(request, fieldOf)) {
    const name = checkImageUrl(image);
    if (name !== undefined) hosts.push({ field: image.field, name });
  }
  const refusal = await findPrivateResolution(hosts, options);
  if (refusal?.kind === 'not_public')
    throw invalidRequest(refusal.field, `${refusal.field}: ${refusalText(PUBLIC_URL_RULE, refusal.reason)}`);
  if (refusal?.kind === 'too_many_hosts')
    throw invalidRequest(
      'messages',
      `messages: image URLs may name at most ${refusal.max} distinct hosts in one request (data: URIs name none)`,
    );
}
