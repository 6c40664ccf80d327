/**
 * What the MiniMax fake's `POST /v1/video_generation` accepts (docs/upstreams.md §6.4), as data:
 * per model, whether it makes video from text, from a first-frame image, and which durations
 * each resolution offers. A request outside this is refused with 2013 inside HTTP 200, as
 * MiniMax refuses invalid parameters.
 */

interface VideoModelRules {
  readonly textToVideo: boolean;
  readonly imageToVideo: boolean;
  readonly defaultResolution: string;
  /** Resolution → the durations (seconds) it is offered for. */
  readonly durations: Readonly<Record<string, readonly number[]>>;
}

const HAILUO: VideoModelRules = {
  textToVideo: true,
  imageToVideo: true,
  defaultResolution: '768P',
  durations: { '768P': [6, 10], '1080P': [6] },
};
const LEGACY_TEXT: VideoModelRules = {
  textToVideo: true,
  imageToVideo: false,
  defaultResolution: '720P',
  durations: { '720P': [6] },
};
const LEGACY_IMAGE: VideoModelRules = { ...LEGACY_TEXT, textToVideo: false, imageToVideo: true };

export const SIM_VIDEO_MODELS: Readonly<Record<string, VideoModelRules>> = {
  'MiniMax-Hailuo-2.3': HAILUO,
  'MiniMax-Hailuo-2.3-Fast': { ...HAILUO, textToVideo: false },
  // 512P exists for image-to-video only; the fake offers it for both.
  'MiniMax-Hailuo-02': { ...HAILUO, durations: { ...HAILUO.durations, '512P': [6, 10] } },
  'T2V-01-Director': LEGACY_TEXT,
  'T2V-01': LEGACY_TEXT,
  'I2V-01-Director': LEGACY_IMAGE,
  'I2V-01-live': LEGACY_IMAGE,
  'I2V-01': LEGACY_IMAGE,
};

/** Frame size per resolution, as `video_width` / `video_height` report it. */
export const FRAME_SIZES: Readonly<Record<string, { readonly width: number; readonly height: number }>> = {
  '512P': { width: 912, height: 512 },
  '720P': { width: 1280, height: 720 },
  '768P': { width: 1366, height: 768 },
  '1080P': { width: 1920, height: 1080 },
};

export const MAX_SIM_PROMPT_CHARS = 2000;

export interface AcceptedVideoTask {
  readonly model: string;
  readonly prompt: string;
  readonly duration: number;
  readonly resolution: string;
  readonly callbackUrl?: string;
}

/** The task a create body asks for, or the reason MiniMax would give for refusing it. */
export function acceptVideoTask(body: unknown): AcceptedVideoTask | { readonly refusal: string } {
  const fields = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const model = typeof fields['model'] === 'string' ? fields['model'] : '';
  const rules = Object.hasOwn(SIM_VIDEO_MODELS, model) ? SIM_VIDEO_MODELS[model] : undefined;
  if (!rules) return { refusal: `invalid params, model: ${model || '(missing)'} is not supported` };
  const image = fields['first_frame_image'];
  if (image !== undefined && (typeof image !== 'string' || image === ''))
    return { refusal: 'invalid params, first_frame_image must be a URL or data URL' };
  if (image === undefined && !rules.textToVideo)
    return { refusal: `invalid params, ${model} requires first_frame_image` };
  if (image !== undefined && !rules.imageToVideo)
    return { refusal: `invalid params, ${model} does not take first_frame_image` };
  const prompt = fields['prompt'] ?? '';
  if (typeof prompt !== 'string' || [...prompt].length > MAX_SIM_PROMPT_CHARS)
    return { refusal: `invalid params, prompt must be a string of at most ${MAX_SIM_PROMPT_CHARS} characters` };
  if (prompt.trim() === '' && image === undefined) return { refusal: 'invalid params, prompt is required' };
  const duration = fields['duration'] ?? 6;
  const resolution = fields['resolution'] ?? rules.defaultResolution;
  const offered =
    typeof resolution === 'string' && Object.hasOwn(rules.durations, resolution)
      ? rules.durations[resolution]
      : undefined;
  if (!offered) return { refusal: `invalid params, resolution ${String(resolution)} is not offered by ${model}` };
  if (typeof duration !== 'number' || !offered.includes(duration))
    return { refusal: `invalid params, duration ${String(duration)} is not offered at ${String(resolution)}` };
  const callbackUrl = fields['callback_url'];
  if (callbackUrl !== undefined && (typeof callbackUrl !== 'string' || !/^https?:\/\//.test(callbackUrl)))
    return { refusal: 'invalid params, callback_url must be an http(s) URL' };
  return {
    model,
    prompt,
    duration,
    resolution: resolution as string,
    ...(typeof callbackUrl === 'string' ? { callbackUrl } : {}),
  };
}
