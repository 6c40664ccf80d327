import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import { MediaError, mediaErrorOf, VIDEO_TASK_NOT_FOUND } from './media-errors.js';
import { downloadLinkFor, type VideoJobFile } from './video-download-link.js';
import { retrieveVideoFile } from './video-file.js';
import { VIDEO_MODELS, type VideoModelId } from './video-models.js';
import { checkVideoHosts, parseVideoRequest } from './video-request.js';
import { submitVideo, type VideoStatus } from './video-task.js';
import type { ProviderEndpoint } from '../providers/provider-config.js';
import { UpstreamError } from '../providers/upstream-failure.js';
import { VIDEO_JOB_KIND, videoJobDriver, type VideoJobDetails, type VideoJobResult } from './video-job-driver.js';
import { ownedJobOfKind, reportedJob } from '../jobs/job-lookup.js';
import { webhookReportOf, type JobError, type JobRecord, type JsonObject } from '../jobs/job-record.js';

type WebhookReport = ReturnType<typeof webhookReportOf>;
import { recordedOwner, type JobOwner, type MediaJobDeps } from '../jobs/media-job-deps.js';
import { submitWithReservation } from '../jobs/job-reservations.js';
import { unitCostMicroUsd } from '../catalog/unit-prices.js';
import { videoWorkOf } from './video-usage.js';
import { startJob } from '../jobs/start-job.js';

/**
 * Video generation as a job (docs/interface.md §4.9): submit checks and translates the request, hands it to
 * MiniMax and starts the poller; status reads the job record, and for a finished video hands
 * out a download link that works for at least 10 more minutes (video-download-link.ts). No
 * HTTP here: refusals are MediaErrors, an unknown task JobNotFoundError (answered as a video task).
 */

/** A video job as the routes answer it (docs/interface.md §2.13): `task_id` is the job's id, never MiniMax's. */
export interface VideoJob {
  readonly taskId: string;
  readonly status: 'submitted' | VideoStatus;
  readonly model: VideoModelId;
  readonly fileId: string | null;
  readonly downloadUrl: string | null;
  /** Why a `Fail` failed; null otherwise. */
  readonly error: JobError | null;
  /** How the job's webhook went (docs/interface.md §6.4); null without one. */
  readonly webhook: WebhookReport;
}

export async function submitVideoJob(
  body: unknown,
  owner: JobOwner,
  signal: AbortSignal,
  deps: MediaJobDeps,
): Promise<VideoJob> {
  const webhookReceivers = deps.webhookReceivers ?? [];
  const request = parseVideoRequest(body, { webhookReceivers });
  await checkVideoHosts(request, { lookup: deps.lookupHost, webhookReceivers });
  const endpoint = await minimaxEndpoint(deps);
  const details: VideoJobDetails = { model: request.model, duration: request.duration, resolution: request.resolution };
  // The most it is billed: every second asked for, at the model's and resolution's price.
  const work = videoWorkOf(details, { status: 'Success' });
  const bound = unitCostMicroUsd(work.model, work.unit, work.quantity).microUsd;
  const { value: taskId, budgetHolds } = await submitWithReservation(owner.budgets ?? [], bound, () =>
    submitVideo(endpoint, request, { send: deps.send, signal }).catch((error: unknown) => {
      throw error instanceof UpstreamError ? mediaErrorOf(error.failure, 'prompt') : error;
    }),
  );
  const job = await startJob(
    {
      kind: VIDEO_JOB_KIND,
      ...recordedOwner(owner),
      ...(budgetHolds ? { budgetHolds } : {}),
      provider: MEDIA_PROVIDERS.minimax.id,
      model: VIDEO_MODELS[request.model].upstream,
      upstreamJobId: taskId,
      upstreamStatus: 'Queueing',
      details: { ...details },
      ...(request.webhookUrl === undefined ? {} : { webhookUrl: request.webhookUrl }),
    },
    deps,
  );
  return {
    taskId: job.jobId,
    status: 'submitted',
    model: request.model,
    fileId: null,
    downloadUrl: null,
    error: null,
    webhook: webhookReportOf(job),
  };
}

/** The caller's own video job; a finished one with a working download link. */
export async function videoJobStatus(
  accountId: string,
  taskId: string,
  signal: AbortSignal,
  deps: MediaJobDeps,
): Promise<VideoJob> {
  const job = reportedJob(
    await ownedJobOfKind(
      accountId,
      taskId,
      VIDEO_JOB_KIND,
      { getOwnedJob: deps.jobs.getOwnedJob, now: deps.now },
      VIDEO_TASK_NOT_FOUND,
    ),
    videoJobDriver,
    deps.now(),
  );
  const base = { taskId: job.jobId, model: videoJobDriver.details(job).model, webhook: webhookReportOf(job) };
  switch (job.phase) {
    case 'queued':
      return { ...base, status: 'Queueing', fileId: null, downloadUrl: null, error: null };
    case 'running':
      return { ...base, status: 'Processing', fileId: null, downloadUrl: null, error: null };
    case 'failed':
      return { ...base, status: 'Fail', fileId: null, downloadUrl: null, error: job.error ?? null };
    case 'succeeded': {
      const result = videoJobDriver.result(job);
      return {
        ...base,
        status: 'Success',
        fileId: result.file_id,
        downloadUrl: await downloadUrlOf(job, result, signal, deps),
        error: null,
      };
    }
  }
}

/** The kept link while it has time left, else a fresh one from MiniMax, kept for the next reads. */
async function downloadUrlOf(
  job: JobRecord,
  result: VideoJobResult,
  signal: AbortSignal,
  deps: MediaJobDeps,
): Promise<string> {
  const file: VideoJobFile = {
    fileId: result.file_id,
    ...(result.download_url === undefined ? {} : { downloadUrl: result.download_url }),
    ...(result.download_url_expires_at === undefined ? {} : { downloadUrlExpiresAt: result.download_url_expires_at }),
  };
  const now = deps.now();
  const link = await downloadLinkFor(file, now.getTime(), {
    retrieve: async (fileId) => {
      const endpoint = await minimaxEndpoint(deps);
      return retrieveVideoFile(endpoint, fileId, { send: deps.send, signal, now: () => now.getTime() }).catch(
        (error: unknown) => {
          throw error instanceof UpstreamError ? fileApiError(error) : error;
        },
      );
    },
  });
  if (link.refreshed) {
    const kept: JsonObject = { ...result, download_url: link.downloadUrl, download_url_expires_at: link.expiresAt };
    await deps.jobs.updateJobResult(job, kept, now);
  }
  return link.downloadUrl;
}

async function minimaxEndpoint(deps: MediaJobDeps): Promise<ProviderEndpoint> {
  const endpoint = await deps.minimax();
  if (!endpoint) throw new MediaError('not_configured', 'Video generation is not configured (no MiniMax key)');
  return endpoint;
}

/**
 * MiniMax's file API failing at a status read is never the caller's input: its throttling is
 * worth a retry (429), anything else is the provider's failure (503).
 */
function fileApiError(error: UpstreamError): MediaError {
  const { kind, retryAfterMs } = error.failure;
  if (kind === 'rate_limit')
    return new MediaError('rate_limited', `the video provider is rate limiting: ${error.message}`, {
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  return new MediaError('upstream_failed', `the video provider's file API failed: ${error.message}`);
}
