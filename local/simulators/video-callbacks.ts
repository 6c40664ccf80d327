import { randomBytes } from 'node:crypto';
import { BUSINESS_CODES, traceId } from './minimax-wire.js';
import { advance, currentStatus, isFinished, type SimVideoTask } from './video-tasks.js';

/**
 * The `callback_url` flow of MiniMax's video tasks (docs/upstreams.md §6.4). On create, the fake
 * POSTs `{"challenge": "<value>"}` to the URL and needs the same value echoed within 3 s, or
 * refuses the task (2013). A verified task then walks on its own, a step every `step_ms`, and
 * each change of its callback status is POSTed as MiniMax does, in lower case: `processing`
 * for every step before the end, then `success` (with `file_id`) or `failed`. A push that
 * fails is not retried.
 */

export const CHALLENGE_TIMEOUT_MS = 3_000;
const PUSH_TIMEOUT_MS = 3_000;

/** A step's status → what a callback says of it. */
const CALLBACK_STATUS: Readonly<Record<string, string>> = {
  Preparing: 'processing',
  Queueing: 'processing',
  Processing: 'processing',
  Success: 'success',
  Fail: 'failed',
  Failed: 'failed',
};

/** The fields and business code a status answer of the task carries (as the query route answers). */
export type StatusAnswer = (task: SimVideoTask, status: string) => { fields: Record<string, unknown>; code: number };

export async function verifyCallback(url: string): Promise<boolean> {
  const challenge = randomBytes(12).toString('hex');
  try {
    const response = await post(url, { challenge }, CHALLENGE_TIMEOUT_MS);
    const echoed = (await response.json()) as { challenge?: unknown } | null;
    return response.ok && echoed?.challenge === challenge;
  } catch {
    return false;
  }
}

/** Walks the task on a timer, pushing each change until it ends. */
export function walkWithCallbacks(task: SimVideoTask, url: string, answerOf: StatusAnswer): void {
  let pushed = '';
  // One push at a time, so they arrive in the order of the walk.
  let delivery: Promise<unknown> = Promise.resolve();
  const pushStep = (status: string) => {
    const callbackStatus = CALLBACK_STATUS[status] ?? status.toLowerCase();
    if (callbackStatus === pushed) return;
    pushed = callbackStatus;
    const { fields, code } = answerOf(task, status);
    const message = code === 0 ? 'success' : (BUSINESS_CODES[String(code)] ?? 'error');
    const body = { ...fields, status: callbackStatus, base_resp: { status_code: code, status_msg: message } };
    delivery = delivery.then(() => post(url, { ...body, trace_id: traceId() }, PUSH_TIMEOUT_MS)).catch(() => undefined);
  };
  pushStep(currentStatus(task));
  const timer = setInterval(() => {
    pushStep(advance(task));
    if (isFinished(task)) clearInterval(timer);
  }, task.stepMs);
  // The walk never keeps the process alive on its own.
  timer.unref();
}

function post(url: string, body: unknown, timeoutMs: number): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
}
