import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import { UpstreamError, upstreamFailure } from '../providers/upstream-failure.js';
import { MADE_RESOLUTIONS, VIDEO_DURATIONS, VIDEO_MODEL_IDS } from './video-models.js';
import type { VideoRequest } from './video-request.js';
import { queryVideo, type VideoTaskState } from './video-task.js';
import { videoWorkOf } from './video-usage.js';
import type { JobDriver, JobEnd, JobProgress, JobReaders } from '../jobs/job-driver.js';
import type { JobRecord } from '../jobs/job-record.js';
import { StoredAttributes } from '../jobs/stored-job.js';

/**
 * Video jobs over MiniMax (kind `video`): each poll is one query of the task; `Success` ends
 * the job with the file id (the status route fetches a download link from it), `Fail` ends it
 * with the upstream failure's kind as the error name. The submit route keeps the checked
 * request (docs/interface.md §4.9, translated) as the record's `details`, which prices the finished video.
 * MiniMax says a video takes 1 to 3 minutes: polled every 10 s for up to 30 minutes.
 */
export const VIDEO_JOB_KIND = 'video';

/** What the record keeps of the request: what pricing and the status answer read. */
export type VideoJobDetails = Pick<VideoRequest, 'model' | 'duration' | 'resolution'>;

/** A succeeded video job's `result`: the poll's, plus the link the status route last fetched. */
export interface VideoJobResult {
  readonly file_id: string;
  readonly width?: number;
  readonly height?: number;
  readonly download_url?: string;
  /** Epoch milliseconds. */
  readonly download_url_expires_at?: number;
}

export const videoJobDriver: JobDriver & JobReaders<VideoJobDetails, VideoJobResult> = {
  kind: VIDEO_JOB_KIND,
  pollIntervalSeconds: 10,
  maxWaitSeconds: 30 * 60,
  async poll(job, deps) {
    const endpoint = await deps.endpoint(MEDIA_PROVIDERS.minimax);
    if (!endpoint) throw new UpstreamError(upstreamFailure('auth', 'MiniMax is not configured on this deployment'));
    return progressOf(await queryVideo(endpoint, job.upstreamJobId, deps));
  },
  usage(job, end) {
    const finished: VideoTaskState =
      end.phase === 'succeeded'
        ? { status: 'Success' }
        : { status: 'Fail', failure: upstreamFailure('overload', end.error.message) };
    const work = videoWorkOf(videoDetailsOf(job), finished);
    return end.phase === 'succeeded' ? work : { ...work, outcome: end.error.name };
  },
  details: videoDetailsOf,
  result: videoResultOf,
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

/** The request as the submit route stored it; members it does not price by are not read. */
function videoDetailsOf(job: Pick<JobRecord, 'jobId' | 'details'>): VideoJobDetails {
  const details = StoredAttributes.of(job.jobId, 'details', job.details);
  return {
    model: details.oneOf('model', VIDEO_MODEL_IDS),
    duration: details.oneOf('duration', VIDEO_DURATIONS),
    resolution: details.oneOf('resolution', MADE_RESOLUTIONS),
  };
}

function videoResultOf(job: Pick<JobRecord, 'jobId' | 'result'>): VideoJobResult {
  const result = StoredAttributes.of(job.jobId, 'result', job.result);
  const width = result.optionalNumber('width');
  const height = result.optionalNumber('height');
  const downloadUrl = result.optionalText('download_url');
  const expiresAt = result.optionalNumber('download_url_expires_at');
  return {
    file_id: result.text('file_id'),
    ...(width === undefined ? {} : { width }),
    ...(height === undefined ? {} : { height }),
    ...(downloadUrl === undefined ? {} : { download_url: downloadUrl }),
    ...(expiresAt === undefined ? {} : { download_url_expires_at: expiresAt }),
  };
}
