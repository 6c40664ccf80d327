import {
  checkPublicUrl,
  findPrivateResolution,
  MAX_PUBLIC_URL_CHARS,
  PUBLIC_URL_RULE,
  refusalText,
  type LookupOptions,
  type NamedHost,
} from '../schema/public-url.js';
import { exceedsCharacters } from '../schema/text-length.js';
import { invalidFashion } from './fashion-errors.js';

/**
 * The image-input rules of docs/interface.md §4.10. The upstream fetches URLs itself, so a URL must be one
 * it can reach publicly: the gateway's caller-URL policy (lambdas/schema/public-url.ts), http
 * or https, no credentials, no loopback, private, link-local or internal-only hosts (which
 * would also let a caller point the upstream at the platform's own network). A data URI
 * needs its `data:image/<type>;base64,` prefix; a bare base64 string is passed on unchanged, so
 * the upstream fails the prediction with `ImageLoadError` as docs/interface.md §4.10 says it does (a failed
 * prediction costs no credits).
 */

export type ImageInputKind = 'url' | 'data_uri' | 'bare_base64';

/** The caller-URL policy's bound, the same for every URL the gateway takes. */
export const MAX_IMAGE_URL_CHARS = MAX_PUBLIC_URL_CHARS;
/**
 * A data URI's length: 4 MiB of text (about 3 MiB of image). Lambda accepts at most 6 MB of
 * request body, which the local server enforces too; this bounds each image below that.
 */
export const MAX_DATA_URI_CHARS = 4 * 1024 * 1024;

const DATA_URI = /^data:image\/(png|jpeg|jpg|webp|gif|avif|heic);base64,([A-Za-z0-9+/]+={0,2})$/;
const BARE_BASE64 = /^[A-Za-z0-9+/]{64,}={0,2}$/;

const IMAGE_RULE = `${PUBLIC_URL_RULE} or a data:image/<type>;base64, URI`;

export function imageInputKind(field: string, value: string): ImageInputKind {
  if (value.startsWith('data:')) return dataUri(field, value);
  if (BARE_BASE64.test(value)) {
    if (exceedsCharacters(value, MAX_DATA_URI_CHARS)) throw invalidFashion(field, tooLong(MAX_DATA_URI_CHARS));
    return 'bare_base64';
  }
  publicUrl(field, value, IMAGE_RULE);
  return 'url';
}

function dataUri(field: string, value: string): ImageInputKind {
  if (exceedsCharacters(value, MAX_DATA_URI_CHARS)) throw invalidFashion(field, tooLong(MAX_DATA_URI_CHARS));
  if (!DATA_URI.test(value)) {
    throw invalidFashion(field, 'must be a data URI of the form data:image/<png|jpeg|webp|...>;base64,<base64>');
  }
  return 'data_uri';
}

/** Throws naming `field`, saying `rule` and why, unless `value` passes the caller-URL policy's static rules. */
export function publicUrl(field: string, value: string, rule: string): URL {
  const check = checkPublicUrl(value);
  if (!check.ok) throw invalidFashion(field, refusalText(rule, check.reason));
  return check.url;
}

/** What the host check reads of a request: its inputs and the model's input types (a FashionRequest). */
interface UrlInputs {
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly model: { readonly inputs: Readonly<Record<string, { readonly type: string } | undefined>> };
}

/**
 * The policy's second step, before the request goes upstream: the host names of its URL
 * inputs (images, LoRA weights) resolved, and the first input whose name resolves to an
 * address that is not public refused, naming it.
 */
export async function checkFashionHosts(request: UrlInputs, options: LookupOptions = {}): Promise<void> {
  const hosts: NamedHost[] = [];
  for (const [input, value] of Object.entries(request.inputs)) {
    const type = request.model.inputs[input]?.type;
    if ((type !== 'image' && type !== 'lora_url') || typeof value !== 'string') continue;
    // A data URI or bare base64 is no URL here: it has no host to resolve.
    const check = checkPublicUrl(value);
    if (check.ok && check.name !== undefined) hosts.push({ field: `inputs.${input}`, name: check.name });
  }
  const refusal = await findPrivateResolution(hosts, options);
  if (refusal?.kind === 'not_public') throw invalidFashion(refusal.field, refusalText(PUBLIC_URL_RULE, refusal.reason));
  if (refusal?.kind === 'too_many_hosts')
    throw invalidFashion('inputs', `may name at most ${refusal.max} distinct URL hosts`);
}

const tooLong = (max: number) => `must be at most ${max} characters`;
