import type { MeteredWork } from '../usage/metering.js';
import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import { VIDEO_MODELS } from './video-models.js';
import type { VideoRequest } from './video-request.js';
import type { VideoTaskState } from './video-task.js';

/**
 * The meter's `work` item for a finished video task: seconds of video, priced per upstream
 * model and resolution (`minimax/MiniMax-Hailuo-2.3/1080P`, catalog/unit-prices.ts). A failed
 * task made nothing and counts 0 seconds.
 */
export function videoWorkOf(
  request: Pick<VideoRequest, 'model' | 'duration' | 'resolution'>,
  finished: VideoTaskState,
): MeteredWork {
  const provider = MEDIA_PROVIDERS.minimax.id;
  const succeeded = finished.status === 'Success';
  return {
    model: `${provider}/${VIDEO_MODELS[request.model].upstream}/${request.resolution}`,
    provider,
    unit: 'seconds',
    quantity: succeeded ? request.duration : 0,
    status: finished.failure?.status ?? 200,
    outcome: succeeded ? 'ok' : (finished.failure?.kind ?? 'overload'),
  };
}
