import type { SimRoute } from './harness.js';

/** The MiniMax fake's video routes (being built: issue 11). */
export const MINIMAX_VIDEO_ROUTES: readonly SimRoute[] = [];
