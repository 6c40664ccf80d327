import type { ProviderEndpoint } from '../providers/provider-config.js';
import { UpstreamError, upstreamFailure, type UpstreamFailure } from '../providers/upstream-failure.js';
import { callMinimax, type MinimaxDeps } from './minimax-call.js';
import { VIDEO_MODELS } from './video-models.js';
import type { VideoRequest } from './video-request.js';

/**
 * A MiniMax video task (docs/upstreams.md §6.4): submit it, then poll it. MiniMax's statuses are
 * translated to the interface's four here (docs/interface.md §3), so the jobs platform never
 * sees `Preparing`.
 */

export type VideoStatus = 'Queueing' | 'Processing' | 'Success' | 'Fail';

export interface VideoTaskState {
  readonly status: VideoStatus;
  /** On `Success`: the file to retrieve the download link of. */
  readonly fileId?: string;
  readonly width?: number;
  readonly height?: number;
  /** On `Fail`: why, classified (content_filter for MiniMax's 1026/1027). */
  readonly failure?: UpstreamFailure;
}

/** MiniMax's status (any case: callbacks spell them lower-case) → the interface's. */
const STATUS_OF: Readonly<Record<string, VideoStatus>> = {
  preparing: 'Queueing',
  queueing: 'Queueing',
  processing: 'Processing',
  success: 'Success',
  fail: 'Fail',
  failed: 'Fail',
};

/** A status MiniMax may add later is taken as work in progress: the next poll looks again. */
const UNKNOWN_STATUS: VideoStatus = 'Processing';

/**
 * Business codes a query answers when the task can never succeed: its input or its video was
 * flagged (1026, 1027), or MiniMax does not know the task for this key (2013, as the
 * simulator answers; MiniMax's own answer there is unconfirmed). Other codes (rate limits,
 * auth, outages) are the query's own failure and are thrown: the task may still finish.
 */
const TASK_ENDING_CODES: ReadonlySet<string> = new Set(['1026', '1027', '2013']);

/** Submits the task; answers MiniMax's task id. */
export async function submitVideo(
  endpoint: ProviderEndpoint,
  request: VideoRequest,
  deps: MinimaxDeps,
): Promise<string> {
  const { body } = await callMinimax(
    endpoint,
    { method: 'POST', path: '/video_generation', body: videoGenerationBody(request) },
    deps,
  );
  const taskId = idOf(body['task_id']);
  if (!taskId) throw malformed(`MiniMax video submit answered no task_id`);
  return taskId;
}

export function videoGenerationBody(request: VideoRequest): Record<string, unknown> {
  return {
    model: VIDEO_MODELS[request.model].upstream,
    prompt: request.prompt,
    duration: request.duration,
    resolution: request.resolution,
    prompt_optimizer: request.promptOptimizer,
    ...(request.firstFrameImage === undefined ? {} : { first_frame_image: request.firstFrameImage }),
  };
}

export async function queryVideo(
  endpoint: ProviderEndpoint,
  taskId: string,
  deps: MinimaxDeps,
): Promise<VideoTaskState> {
  try {
    const { body } = await callMinimax(
      endpoint,
      { method: 'GET', path: '/query/video_generation', query: { task_id: taskId } },
      deps,
    );
    return stateOf(body);
  } catch (error) {
    if (error instanceof UpstreamError && TASK_ENDING_CODES.has(error.failure.providerCode ?? ''))
      return { status: 'Fail', failure: error.failure };
    throw error;
  }
}

function stateOf(body: Readonly<Record<string, unknown>>): VideoTaskState {
  const reported = typeof body['status'] === 'string' ? body['status'].toLowerCase() : '';
  const status = Object.hasOwn(STATUS_OF, reported) ? STATUS_OF[reported]! : UNKNOWN_STATUS;
  if (status === 'Fail')
    return { status, failure: upstreamFailure('overload', 'MiniMax reported the video task failed') };
  if (status !== 'Success') return { status };
  const fileId = idOf(body['file_id']);
  if (!fileId) throw malformed('MiniMax reported a finished video without a file_id');
  return { status, fileId, ...dimension('width', body['video_width']), ...dimension('height', body['video_height']) };
}

const dimension = (name: 'width' | 'height', value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? { [name]: value } : {};

/** MiniMax's ids are numeric strings, but the file API types them int64: accept both. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return undefined;
}

export const malformed = (message: string): UpstreamError => new UpstreamError(upstreamFailure('malformed', message));
