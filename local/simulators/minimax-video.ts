import type { SimExchange, SimRoute } from './harness.js';
import { businessError, minimaxAnswer } from './minimax-wire.js';
import { combinedState, type SimulatorState } from './persisted-state.js';
import {
  downloadAnswer,
  downloadUrlOf,
  DOWNLOAD_PATH,
  fileForTask,
  fileOf,
  VIDEO_FILENAME,
  videoFileState,
  videoOf,
} from './video-files.js';
import { verifyCallback, walkWithCallbacks, type StatusAnswer } from './video-callbacks.js';
import { acceptVideoTask, FRAME_SIZES } from './video-model-rules.js';
import { createTask, pollTask, selfPacedUnfinished, taskOf, videoTaskState, type SimVideoTask } from './video-tasks.js';

/**
 * The MiniMax fake's video routes (docs/upstreams.md §6.4): create a task, poll it along its walk
 * (video-tasks.ts) or follow it through `callback_url` pushes (video-callbacks.ts), retrieve
 * its file's download link and download it (video-files.ts).
 * A task id or file id the key did not create, or that never existed, is answered with 2013
 * "invalid params" inside HTTP 200 (MiniMax's behaviour here is unconfirmed; this is the code
 * it gives for other unusable parameters).
 */

/** The key a request carries (the harness has already refused requests without one). */
const ownerOf = (x: SimExchange): string => String(x.headers.authorization ?? '').replace(/^Bearer /, '');

async function createVideoTask(x: SimExchange): Promise<void> {
  const accepted = acceptVideoTask(x.body);
  if ('refusal' in accepted) return x.send(businessError(2013, accepted.refusal));
  const { callbackUrl } = accepted;
  if (callbackUrl !== undefined && !(await verifyCallback(callbackUrl)))
    return x.send(businessError(2013, 'invalid params, callback_url did not echo the challenge'));
  const task = createTask(ownerOf(x), accepted, callbackUrl !== undefined);
  if (callbackUrl !== undefined) walkWithCallbacks(task, callbackUrl, statusAnswer);
  return x.send(minimaxAnswer({ task_id: task.taskId }));
}

async function queryVideoTask(x: SimExchange): Promise<void> {
  const task = taskOf(ownerOf(x), x.url.searchParams.get('task_id') ?? '');
  if (!task) return x.send(businessError(2013, 'invalid params, task not found'));
  const { fields, code } = statusAnswer(task, pollTask(task));
  return x.send(minimaxAnswer(fields, code));
}

const statusAnswer: StatusAnswer = (task, status) => ({
  fields: statusFields(task, status),
  code: status === 'Fail' ? task.failCode : 0,
});

function statusFields(task: SimVideoTask, status: string): Record<string, unknown> {
  if (status !== 'Success') return { task_id: task.taskId, status };
  const { width, height } = FRAME_SIZES[task.accepted.resolution]!;
  const { fileId } = fileForTask(task);
  return { task_id: task.taskId, status, file_id: fileId, video_width: width, video_height: height };
}

async function retrieveFile(x: SimExchange): Promise<void> {
  const file = fileOf(ownerOf(x), x.url.searchParams.get('file_id') ?? '');
  if (!file) return x.send(businessError(2013, 'invalid params, file not found'));
  return x.send(
    minimaxAnswer({
      file: {
        file_id: Number(file.fileId),
        bytes: videoOf(file).length,
        created_at: Math.floor(file.createdAt / 1000),
        filename: VIDEO_FILENAME,
        purpose: 'video_generation',
        download_url: downloadUrlOf(file, String(x.headers.host)),
      },
    }),
  );
}

const storedVideo = combinedState({ tasks: videoTaskState, files: videoFileState });

/**
 * The video half's state across a restart (tasks, files, the links' signing key). A task
 * that walks on its own takes up its walk again, as the upstream's would have gone on.
 */
export const MINIMAX_VIDEO_STATE: SimulatorState = {
  ...storedVideo,
  restore(snapshot) {
    storedVideo.restore(snapshot);
    for (const task of selfPacedUnfinished()) {
      const { callbackUrl } = task.accepted;
      if (callbackUrl !== undefined) walkWithCallbacks(task, callbackUrl, statusAnswer);
    }
  },
};

export const MINIMAX_VIDEO_ROUTES: readonly SimRoute[] = [
  { method: 'POST', path: /^\/v1\/video_generation$/, faultable: true, handle: createVideoTask },
  { method: 'GET', path: /^\/v1\/query\/video_generation$/, faultable: true, handle: queryVideoTask },
  { method: 'GET', path: /^\/v1\/files\/retrieve$/, faultable: true, handle: retrieveFile },
  { method: 'GET', path: DOWNLOAD_PATH, faultable: false, handle: (x) => x.send(downloadAnswer(x)) },
];
