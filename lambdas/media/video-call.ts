import type { GatewayConfiguration } from '../config/configuration.js';
import type { JobEventView } from '../jobs/notify-step.js';
import { deploymentMediaJobDeps, taskMediaJobDeps } from '../jobs/media-job-deps.js';
import { submitVideoJob, videoJobStatus, type VideoJob } from './video-jobs.js';
import type { VideoRequestBody } from './video-request.js';
import { accountOf, budgetsOf, type AccountCall } from '../http/call.js';
import { badRequest } from '../http/errors.js';
import { envelope, type Reply } from '../http/reply.js';

/**
 * The video routes (docs/interface.md §4.9): submit answers `{task_id, status: 'submitted', model}` once the
 * job's poller has started; status answers the job record, with a working download link.
 */
export async function answerVideoSubmit(call: AccountCall<VideoRequestBody>): Promise<Reply> {
  const owner = { ...accountOf(call), requestId: call.requestId, route: call.route.id, budgets: budgetsOf(call) };
  const job = await submitVideoJob(call.body, owner, call.signal, deploymentMediaJobDeps(call.config));
  return envelope({ task_id: job.taskId, status: job.status, model: job.model });
}

/** The status route's one query parameter. */
export const VIDEO_STATUS_QUERY = ['task_id'] as const;

export async function answerVideoStatus(call: AccountCall): Promise<Reply> {
  const taskId = call.req.query['task_id'];
  if (taskId === undefined || taskId === '') throw badRequest('task_id', 'task_id: is required (?task_id=<task_id>)');
  const job = await videoJobStatus(accountOf(call).accountId, taskId, call.signal, deploymentMediaJobDeps(call.config));
  return envelope(videoStatusData(job));
}

/**
 * docs/interface.md §2.13's video job; `error` says why a `Fail` failed (null otherwise),
 * `webhook` how its webhook went (§6.4).
 */
function videoStatusData(job: VideoJob) {
  return { ...videoEventData(job), webhook: job.webhook };
}

/** What a video event's `data` holds (docs/interface.md §6.4): the status answer but its `webhook`, which the event itself settles. */
function videoEventData(job: VideoJob) {
  return {
    task_id: job.taskId,
    status: job.status,
    model: job.model,
    file_id: job.fileId,
    download_url: job.downloadUrl,
    error: job.error,
  };
}

/** Video jobs' webhook events, `video.completed` and `video.failed` (lambdas/jobs/notify-step.ts). */
export function videoEventView(config: GatewayConfiguration, signal: AbortSignal): JobEventView {
  return {
    type: 'video',
    data: async (job) =>
      videoEventData(await videoJobStatus(job.accountId, job.jobId, signal, taskMediaJobDeps(config))),
  };
}
