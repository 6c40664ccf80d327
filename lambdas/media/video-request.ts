import { compileConditional } from '../schema/compile.js';
import {
  checkPublicUrl,
  findPrivateResolution,
  PUBLIC_URL_RULE,
  refusalText,
  type LookupOptions,
} from '../schema/public-url.js';
import { exceedsCharacters } from '../schema/text-length.js';
import { checkWebhookUrl, webhookHostRefusal, webhookUrlSchema } from '../jobs/webhook-url.js';
import { CAMERA_COMMANDS, normalizeCameraCommands } from './video-camera.js';
import { invalidVideo } from './media-errors.js';
import {
  DEFAULT_VIDEO_DURATION,
  DEFAULT_VIDEO_MODEL,
  DURATIONS_AT,
  MADE_AT,
  MAX_FIRST_FRAME_URL_CHARS,
  MAX_VIDEO_PROMPT_CHARS,
  RESOLUTION_PREFERENCE,
  VIDEO_DURATIONS,
  VIDEO_MODEL_IDS,
  VIDEO_MODELS,
  VIDEO_RESOLUTIONS,
  type MadeResolution,
  type VideoDuration,
  type VideoModelId,
  type VideoResolution,
} from './video-models.js';

/**
 * The video submit body (docs/interface.md §4.9) checked and translated for MiniMax before any upstream
 * call: every refusal is a MediaError (`invalid_request`) naming the field. The result is plain data, so it
 * can be kept in a job record and submitted later.
 */
export interface VideoRequest {
  readonly model: VideoModelId;
  /** Camera commands in MiniMax's spelling. */
  readonly prompt: string;
  readonly duration: VideoDuration;
  /** What will be made (a 720P request is made at 768P). */
  readonly resolution: MadeResolution;
  readonly promptOptimizer: boolean;
  /** An extension: the public http(s) URL of the first frame, which `-Fast` requires. */
  readonly firstFrameImage?: string;
  /** Where the job's end is sent (docs/interface.md §6.4); checked by lambdas/jobs/webhook-url.ts. */
  readonly webhookUrl?: string;
}

const FIRST_FRAME_RULE = `${PUBLIC_URL_RULE} of at most ${MAX_FIRST_FRAME_URL_CHARS} characters`;

/** The body as callers send it (docs/interface.md §4.9, plus the `first_frame_image` extension). */
export interface VideoRequestBody {
  prompt: string;
  model?: VideoModelId;
  duration?: VideoDuration;
  resolution?: VideoResolution;
  prompt_optimizer?: boolean;
  first_frame_image?: string;
  webhook_url?: string;
}

/**
 * The body of POST /api/v1/media/video; the OpenAPI document shows this object. It checks the
 * shape; parseVideoRequest checks what depends on more than one field (the duration and
 * resolution matrix, `-Fast` needing a first frame) and the camera commands.
 */
export const videoRequestSchema = {
  type: 'object',
  required: ['prompt'],
  additionalProperties: false,
  properties: {
    prompt: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_VIDEO_PROMPT_CHARS,
      pattern: '\\S',
      description: `At most ${MAX_VIDEO_PROMPT_CHARS} characters. Camera commands in square brackets, up to three in one: ${CAMERA_COMMANDS.map((command) => `[${command}]`).join(', ')}.`,
      'x-message': {
        pattern: 'must not be blank',
        minLength: 'must not be blank',
        maxLength: `must be at most ${MAX_VIDEO_PROMPT_CHARS} characters`,
      },
    },
    model: { type: 'string', enum: [...VIDEO_MODEL_IDS], default: DEFAULT_VIDEO_MODEL },
    duration: { type: 'integer', enum: [...VIDEO_DURATIONS], description: 'Seconds; default 6' },
    resolution: {
      type: 'string',
      enum: [...VIDEO_RESOLUTIONS],
      description: '720P is made at 768P; 1080P (the default where offered) only for 6 s',
    },
    prompt_optimizer: { type: 'boolean', default: true },
    first_frame_image: {
      type: 'string',
      maxLength: MAX_FIRST_FRAME_URL_CHARS,
      description: 'A public http(s) URL of the first frame; required by the -Fast model',
      'x-message': { maxLength: FIRST_FRAME_RULE },
    },
    webhook_url: webhookUrlSchema,
  },
};

export const videoRequestValidator = compileConditional<VideoRequestBody>(videoRequestSchema);

const FIELDS: ReadonlySet<string> = new Set(Object.keys(videoRequestSchema.properties));

/** The local runtime's test receivers a webhook URL may name (configuration `localWebhookReceivers`). */
export interface VideoRequestOptions {
  readonly webhookReceivers?: readonly string[];
}

export function parseVideoRequest(body: unknown, options: VideoRequestOptions = {}): VideoRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalidVideo('body', 'must be a JSON object');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((name) => !FIELDS.has(name));
  if (unknown !== undefined) throw invalidVideo(unknown, 'is not a field of a video request');
  const model = modelOf(fields['model']);
  const firstFrameImage = firstFrameOf(fields['first_frame_image'], model);
  const duration = durationOf(fields['duration']);
  const webhookUrl = webhookUrlOf(fields['webhook_url'], options.webhookReceivers ?? []);
  return {
    model,
    prompt: promptOf(fields['prompt']),
    duration,
    resolution: resolutionOf(fields['resolution'], duration),
    promptOptimizer: booleanOf(fields['prompt_optimizer'], 'prompt_optimizer', true),
    ...(firstFrameImage === undefined ? {} : { firstFrameImage }),
    ...(webhookUrl === undefined ? {} : { webhookUrl }),
  };
}

function webhookUrlOf(value: unknown, receivers: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  const check = checkWebhookUrl(value, receivers);
  if (!check.ok) throw invalidVideo('webhook_url', check.message);
  return check.url;
}

function promptOf(value: unknown): string {
  if (value === undefined) throw invalidVideo('prompt', 'is required');
  if (typeof value !== 'string') throw invalidVideo('prompt', 'must be a string');
  if (value.trim() === '') throw invalidVideo('prompt', 'must not be blank');
  if (exceedsCharacters(value, MAX_VIDEO_PROMPT_CHARS))
    throw invalidVideo('prompt', `must be at most ${MAX_VIDEO_PROMPT_CHARS} characters`);
  return normalizeCameraCommands(value);
}

function modelOf(value: unknown): VideoModelId {
  if (value === undefined) return DEFAULT_VIDEO_MODEL;
  if (!VIDEO_MODEL_IDS.includes(value as VideoModelId))
    throw invalidVideo('model', `must be one of ${VIDEO_MODEL_IDS.join(', ')}`);
  return value as VideoModelId;
}

/**
 * Only public http(s) URLs (the caller-URL policy, lambdas/schema/public-url.ts): MiniMax
 * fetches the frame itself. A data: URL would not fit the job record (DynamoDB items hold 400 KB)
 * nor the Step Functions input (256 KB) that carry the request to the upstream.
 */
function firstFrameOf(value: unknown, model: VideoModelId): string | undefined {
  if (value === undefined) {
    if (VIDEO_MODELS[model].needsFirstFrame)
      throw invalidVideo('first_frame_image', `is required with ${model}, which makes video from an image only`);
    return undefined;
  }
  if (typeof value !== 'string') throw invalidVideo('first_frame_image', FIRST_FRAME_RULE);
  const check = checkPublicUrl(value);
  if (!check.ok) throw invalidVideo('first_frame_image', refusalText(FIRST_FRAME_RULE, check.reason));
  return value;
}

/**
 * The caller-URL policy's second step, before the request goes upstream: the first frame's
 * host name resolved, and refused when it resolves to an address that is not public.
 */
export async function checkVideoHosts(
  request: VideoRequest,
  options: LookupOptions & VideoRequestOptions = {},
): Promise<void> {
  const webhookRefusal = webhookHostRefusal(request.webhookUrl, options.webhookReceivers ?? [], options);
  const check = request.firstFrameImage === undefined ? undefined : checkPublicUrl(request.firstFrameImage);
  if (check?.ok && check.name !== undefined) {
    const refusal = await findPrivateResolution([{ field: 'first_frame_image', name: check.name }], options);
    if (refusal?.kind === 'not_public')
      throw invalidVideo(refusal.field, refusalText(FIRST_FRAME_RULE, refusal.reason));
  }
  const refused = await webhookRefusal;
  if (refused !== undefined) throw invalidVideo('webhook_url', refused);
}

function durationOf(value: unknown): VideoDuration {
  if (value === undefined) return DEFAULT_VIDEO_DURATION;
  if (!VIDEO_DURATIONS.includes(value as VideoDuration))
    throw invalidVideo('duration', `must be one of ${VIDEO_DURATIONS.join(', ')} (seconds)`);
  return value as VideoDuration;
}

function resolutionOf(value: unknown, duration: VideoDuration): MadeResolution {
  if (value === undefined) return RESOLUTION_PREFERENCE.find((made) => DURATIONS_AT[made].includes(duration))!;
  if (!VIDEO_RESOLUTIONS.includes(value as VideoResolution))
    throw invalidVideo('resolution', `must be one of ${VIDEO_RESOLUTIONS.join(', ')}`);
  const made = MADE_AT[value as VideoResolution];
  if (!DURATIONS_AT[made].includes(duration))
    throw invalidVideo(
      'duration',
      `${duration} s is not offered at ${value as string}, only at ${resolutionsOffering(duration).join(', ')}`,
    );
  return made;
}

const resolutionsOffering = (duration: VideoDuration) =>
  VIDEO_RESOLUTIONS.filter((resolution) => DURATIONS_AT[MADE_AT[resolution]].includes(duration));

function booleanOf(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidVideo(field, 'must be true or false');
  return value;
}
