import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import { platformEndpointOf } from '../providers/provider-config.js';
import { UpstreamError, upstreamFailure } from '../providers/upstream-failure.js';
import type { VideoRequest } from './video-request.js';
import { queryVideo, type VideoTaskState } from './video-task.js';
import { videoWorkOf } from './video-usage.js';
import type { JobDriver, JobEnd, JobProgress } from '../jobs/job-driver.js';
import type { JobRecord } from '../jobs/job-record.js';

/**
 * Video jobs over MiniMax (kind `video`): each poll is one query of the task; `Success` ends
 * the job with the file id (the status route fetches a download link from it), `Fail` ends it
 * with the upstream failure's kind as the error name. The submit route keeps the checked
 * request (docs/interface.md §4.9, translated) as the record's `details`, which prices the finished video.
 * MiniMax says a video takes 1 to 3 minutes: polled every 10 s for up to 30 minutes.
 */
export const VIDEO_JOB_KIND = 'video';

export const videoJobDriver: JobDriver = {
  kind: VIDEO_JOB_KIND,
  pollIntervalSeconds: 10,
  maxWaitSeconds: 30 * 60,
  async poll(job, deps) {
    const endpoint = await platformEndpointOf(MEDIA_PROVIDERS.minimax);
    if (!endpoint) throw new UpstreamError(upstreamFailure('auth', 'MiniMax is not configured on this deployment'));
    return progressOf(await queryVideo(endpoint, job.upstreamJobId, deps));
  },
  usage(job, end) {
    const finished: VideoTaskState =
      end.phase === 'succeeded'
        ? { status: 'Success' }
        : { status: 'Fail', failure: upstreamFailure('overload', end.error.message) };
    const work = videoWorkOf(videoRequestOf(job), finished);
    return end.phase === 'succeeded' ? work : { ...work, outcome: end.error.name };
  },
};

function progressOf(state: VideoTaskState): JobProgress {
  switch (state.status) {
    case 'Queueing':
      return { phase: 'queued', upstreamStatus: state.status };
    case 'Processing':
      return { phase: 'running', upstreamStatus: state.status };
    case 'Success':
      return succeeded(state);
    case 'Fail':
      return {
        phase: 'failed',
        upstreamStatus: state.status,
        error: { name: state.failure?.kind ?? 'overload', message: state.failure?.message ?? 'the video task failed' },
      };
  }
}

function succeeded(state: VideoTaskState): JobEnd {
  const size = state.width && state.height ? { width: state.width, height: state.height } : {};
  return { phase: 'succeeded', upstreamStatus: state.status, result: { file_id: state.fileId, ...size } };
}

/** The request the submit route stored; only what pricing reads is needed here. */
function videoRequestOf(job: JobRecord): Pick<VideoRequest, 'model' | 'duration' | 'resolution'> {
  return job.details as unknown as Pick<VideoRequest, 'model' | 'duration' | 'resolution'>;
}
