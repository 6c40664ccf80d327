import { MAX_PUBLIC_URL_CHARS } from '../schema/public-url.js';

/**
 * The video models and sizes of the gateway's interface (docs/interface.md §4.9) and what
 * MiniMax makes for each (docs/upstreams.md §6.4), as data. The interface writes
 * `<vendor>-video-2.3`; the vendor is spelt as the provider's catalog id, `minimax`.
 */

export const VIDEO_MODEL_IDS = ['minimax-video-2.3', 'minimax-video-2.3-Fast'] as const;
export type VideoModelId = (typeof VIDEO_MODEL_IDS)[number];
export const DEFAULT_VIDEO_MODEL: VideoModelId = 'minimax-video-2.3';

export interface VideoModelInfo {
  /** MiniMax's model id. */
  readonly upstream: string;
  /** Image-to-video only upstream: a request must bring `first_frame_image`. */
  readonly needsFirstFrame: boolean;
}

export const VIDEO_MODELS: Readonly<Record<VideoModelId, VideoModelInfo>> = {
  'minimax-video-2.3': { upstream: 'MiniMax-Hailuo-2.3', needsFirstFrame: false },
  'minimax-video-2.3-Fast': { upstream: 'MiniMax-Hailuo-2.3-Fast', needsFirstFrame: true },
};

/** The interface's resolutions (docs/interface.md §4.9). */
export const VIDEO_RESOLUTIONS = ['720P', '768P', '1080P'] as const;
export type VideoResolution = (typeof VIDEO_RESOLUTIONS)[number];

/** What Hailuo 2.3 makes. */
export const MADE_RESOLUTIONS = ['768P', '1080P'] as const;
export type MadeResolution = (typeof MADE_RESOLUTIONS)[number];

/** Hailuo 2.3 has no 720P: the nearest it makes is 768P, which a 720P request gets. */
export const MADE_AT: Readonly<Record<VideoResolution, MadeResolution>> = {
  '720P': '768P',
  '768P': '768P',
  '1080P': '1080P',
};

export const VIDEO_DURATIONS = [6, 10] as const;
export type VideoDuration = (typeof VIDEO_DURATIONS)[number];
export const DEFAULT_VIDEO_DURATION: VideoDuration = 6;

/** Seconds each made resolution is offered for: 1080P only as 6-second clips. */
export const DURATIONS_AT: Readonly<Record<MadeResolution, readonly VideoDuration[]>> = {
  '768P': [6, 10],
  '1080P': [6],
};

/**
 * Without a `resolution`, the interface's default 1080P where the upstream makes it for the
 * duration, else the best that it does (768P for 10 s): a caller who chose only a duration
 * is served rather than refused for a default they did not pick.
 */
export const RESOLUTION_PREFERENCE: readonly MadeResolution[] = ['1080P', '768P'];

export const MAX_VIDEO_PROMPT_CHARS = 2000;
/** The caller-URL policy's bound, the same for every URL the gateway takes. */
export const MAX_FIRST_FRAME_URL_CHARS = MAX_PUBLIC_URL_CHARS;
