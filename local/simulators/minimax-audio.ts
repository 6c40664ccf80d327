import type { SimRoute } from './harness.js';

/** The MiniMax fake's audio routes (being built: issue 11). */
export const MINIMAX_AUDIO_ROUTES: readonly SimRoute[] = [];
