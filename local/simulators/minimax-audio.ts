import { AUDIO_FILE_ROUTE } from './audio-files.js';
import { MUSIC_ROUTE } from './audio-music.js';
import { SPEECH_ROUTE } from './audio-speech.js';
import type { SimRoute } from './harness.js';

/**
 * The MiniMax fake's audio routes: speech (`/t2a_v2`, audio-speech.ts), music
 * (`/music_generation`, audio-music.ts) and the files their `output_format: "url"` answers
 * point at (audio-files.ts). Directives in the text (speech) or prompt/lyrics (music):
 * `[sim:fail_after=N]` (a streamed answer ends with an in-band error event after N chunks),
 * `[sim:url_ttl_ms=N]` (the URL expires sooner), `[sim:latency_ms=N]` (music's generation time).
 */
export const MINIMAX_AUDIO_ROUTES: readonly SimRoute[] = [SPEECH_ROUTE, MUSIC_ROUTE, AUDIO_FILE_ROUTE];
