import type { SimulatorDefinition } from './harness.js';
import { MINIMAX_AUDIO_ROUTES } from './minimax-audio.js';
import { authenticateMinimax, httpError, namedBusinessErrors } from './minimax-wire.js';
import { MINIMAX_VIDEO_ROUTES, MINIMAX_VIDEO_STATE } from './minimax-video.js';
import { isDownloadPath } from './video-files.js';

/**
 * The MiniMax fake (docs/upstreams.md §6 and its Simulator checklist): speech and music
 * (minimax-audio.ts), video tasks and the file store (minimax-video.ts), on the common
 * envelope and auth of minimax-wire.ts. Faults: `status:<code>` is a real HTTP error whose
 * body still carries a business code; `error:<code>` (any code of docs/upstreams.md §6.1, e.g. `error:1002`) is
 * a business error inside HTTP 200, as MiniMax reports them. The model of a request, for
 * faults scoped to one, is its body's `model`. Started over a state folder, its video tasks
 * and files outlive a restart (audio links do not: they last minutes).
 */
export const minimaxSimulator: SimulatorDefinition = {
  name: 'minimax',
  routes: [...MINIMAX_AUDIO_ROUTES, ...MINIMAX_VIDEO_ROUTES],
  modelOf: ({ body }) => {
    const model = (body as { model?: unknown } | undefined)?.model;
    return typeof model === 'string' ? model : undefined;
  },
  errorFor: (status) => httpError(status),
  // Download links are signed in their query, as a CDN's are: they carry no key.
  authenticate: (x) => (isDownloadPath(x.url) ? undefined : authenticateMinimax(x)),
  namedErrors: namedBusinessErrors,
  state: MINIMAX_VIDEO_STATE,
};
