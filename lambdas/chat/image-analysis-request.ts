import { listFamilies, resolveFamily } from '../catalog/model-catalog.js';
import { compileConditional } from '../schema/compile.js';
import {
  checkPublicUrl,
  findPrivateResolution,
  MAX_PUBLIC_URL_CHARS,
  PUBLIC_URL_RULE,
  refusalText,
  type LookupOptions,
} from '../schema/public-url.js';
import { invalidRequest } from './chat-errors.js';

/** The body of `POST /api/v1/images/analyze` (docs/interface.md §4.11). */
export interface ImageAnalysisBody {
  image_url?: string;
  image?: string;
  prompt?: string;
  model?: string;
}

/**
 * A data URI's length: 4 MiB of text, about 3 MiB of image. A request body is at most 6 MB
 * (Lambda's limit, which the local server enforces too); this keeps the image well inside it.
 */
export const MAX_IMAGE_DATA_URI_CHARS = 4 * 1024 * 1024;
export const MAX_ANALYSIS_PROMPT_CHARS = 2_000;

/**
 * The image types every vision provider of the catalog reads (OpenAI, Anthropic and Gemini
 * share these four), each with the bytes its files start with.
 */
const IMAGE_SIGNATURES: Readonly<Record<string, (head: Buffer) => boolean>> = {
  png: (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (head) => head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  gif: (head) => /^GIF8[79]a$/.test(head.subarray(0, 6).toString('latin1')),
  webp: (head) =>
    head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP',
};
const IMAGE_TYPES = Object.keys(IMAGE_SIGNATURES);
const DATA_URI = new RegExp(`^data:image/(${IMAGE_TYPES.join('|')});base64,([A-Za-z0-9+/]+={0,2})$`);
const DATA_URI_RULE = `must be a data:image/<${IMAGE_TYPES.join('|')}>;base64,<data> URI`;

/** Unknown fields are refused, so a misspelt `imageUrl` is named rather than ignored. */
export const imageAnalysisSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    image_url: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_PUBLIC_URL_CHARS,
      'x-message': { maxLength: `must be at most ${MAX_PUBLIC_URL_CHARS} characters` },
    },
    image: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_IMAGE_DATA_URI_CHARS,
      'x-message': { maxLength: `must be at most ${MAX_IMAGE_DATA_URI_CHARS} characters (about 3 MB of image)` },
    },
    prompt: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_ANALYSIS_PROMPT_CHARS,
      pattern: '\\S',
      'x-message': {
        pattern: 'must be text that is not empty or blank',
        maxLength: `must be at most ${MAX_ANALYSIS_PROMPT_CHARS} characters`,
      },
    },
    model: { type: 'string', minLength: 1, maxLength: 200 },
  },
};

export const imageAnalysisValidator = compileConditional<ImageAnalysisBody>(imageAnalysisSchema);

/** The image to analyse, by the field it came in. */
export interface AnalysedImage {
  readonly field: 'image_url' | 'image';
  readonly url: string;
}

/**
 * What the schema cannot say: exactly one image, a data URI of a type the providers read (its
 * bytes agreeing), a URL by the caller-URL policy (lambdas/schema/public-url.ts), its host
 * resolved to a public address, and a model that can see. Run before any upstream call.
 */
export async function checkImageAnalysis(body: ImageAnalysisBody, options: LookupOptions = {}): Promise<AnalysedImage> {
  if (body.model !== undefined) checkVisionModel(body.model);
  if (body.image_url !== undefined && body.image !== undefined)
    throw invalidRequest('image', 'image: give the image once, as image_url or as image, not both');
  if (body.image !== undefined) {
    checkDataUri(body.image);
    return { field: 'image', url: body.image };
  }
  if (body.image_url === undefined)
    throw invalidRequest('image_url', 'image_url: required (a public http(s) URL), unless image holds a data: URI');
  await checkImageUrl(body.image_url, options);
  return { field: 'image_url', url: body.image_url };
}

function checkVisionModel(name: string): void {
  const vision = listFamilies()
    .filter((f) => f.vision)
    .map((f) => f.alias);
  const family = resolveFamily(name);
  if (!family?.vision)
    throw invalidRequest(
      'model',
      `model: ${family ? `${JSON.stringify(name)} cannot see images` : `unknown model ${JSON.stringify(name)}`}; ` +
        `must be one of ${vision.join(', ')} (or another name of theirs in GET /api/v1/models)`,
    );
}

function checkDataUri(value: string): void {
  const match = DATA_URI.exec(value);
  if (!match || match[2]!.length % 4 !== 0) throw invalidRequest('image', `image: ${DATA_URI_RULE}`);
  const type = match[1]!;
  // 16 base64 characters are the first 12 bytes: enough for every signature above.
  if (!IMAGE_SIGNATURES[type]!(Buffer.from(match[2]!.slice(0, 16), 'base64')))
    throw invalidRequest('image', `image: the data is not a ${type} image (its first bytes are not a ${type} file's)`);
}

async function checkImageUrl(value: string, options: LookupOptions): Promise<void> {
  if (/^data:/i.test(value)) throw invalidRequest('image_url', 'image_url: a data: URI goes in image, not image_url');
  const check = checkPublicUrl(value);
  if (!check.ok) throw invalidRequest('image_url', `image_url: ${refusalText(PUBLIC_URL_RULE, check.reason)}`);
  if (check.name === undefined) return;
  const refusal = await findPrivateResolution([{ field: 'image_url', name: check.name }], options);
  if (refusal?.kind === 'not_public')
    throw invalidRequest('image_url', `image_url: ${refusalText(PUBLIC_URL_RULE, refusal.reason)}`);
}
