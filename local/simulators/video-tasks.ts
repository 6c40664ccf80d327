import { changeListeners, type SimulatorState } from './persisted-state.js';
import type { AcceptedVideoTask } from './video-model-rules.js';
import { numericId, remember } from './video-store.js';

/**
 * The MiniMax fake's video tasks (docs/upstreams.md §6.4): each poll of `GET /v1/query/
 * video_generation` moves a task one step along its walk, `Preparing → Queueing → Processing
 * → Success|Fail`, and the last step repeats. Tasks belong to the key that created them.
 *
 * Directives in the prompt steer a task:
 * - `[sim:polls=N]` the walk takes N polls (1 to 100; default 4): the N-th poll and every one
 *   after it is terminal
 * - `[sim:fail]` the task ends `Fail` (base_resp 0); `[sim:fail=CODE]` ends `Fail` with that
 *   business code in base_resp (1026 sensitive input, 1027 sensitive output)
 * - `[sim:walk=S1,S2,...]` exactly these statuses, one per poll (e.g. `Preparing,Unknown,Failed`,
 *   the spellings the official CLI also knows); a walk ending `Success` yields a file
 * - `[sim:url_ttl_ms=N]` the file's download links expire after N ms (default one hour)
 * - `[sim:step_ms=N]` a task with a `callback_url` takes a step every N ms (default 100)
 */

export interface SimVideoTask {
  readonly taskId: string;
  /** The API key that created it: another key's query finds nothing. */
  readonly owner: string;
  readonly accepted: AcceptedVideoTask;
  readonly walk: readonly string[];
  /** `base_resp.status_code` of a `Fail` step. */
  readonly failCode: number;
  readonly urlTtlMs: number;
  /** Steps of the walk reached so far (0: none yet). */
  step: number;
  /**
   * A task with a verified `callback_url` walks on its own, one step every `stepMs`
   * (video-callbacks.ts); polls then read its step without moving it.
   */
  readonly selfPaced: boolean;
  readonly stepMs: number;
}

export const DEFAULT_WALK_POLLS = 4;
const MAX_WALK_POLLS = 100;
export const DEFAULT_URL_TTL_MS = 60 * 60 * 1000;
const DEFAULT_STEP_MS = 100;
const EARLY_STEPS = ['Preparing', 'Queueing', 'Processing'] as const;

const tasks = new Map<string, SimVideoTask>();
const changes = changeListeners();

/** The tasks, for a restart over the same data folder (persisted-state.ts): oldest first. */
export const videoTaskState: SimulatorState = {
  snapshot: () => [...tasks.values()],
  restore(snapshot) {
    const saved = snapshot ?? [];
    if (!Array.isArray(saved) || !saved.every(isTask)) throw new Error('not a list of video tasks');
    tasks.clear();
    for (const task of saved) remember(tasks, task.taskId, task);
  },
  onChange: changes.onChange,
};

/** Tasks still walking on their own, e.g. after a restore (their timers did not survive it). */
export const selfPacedUnfinished = (): SimVideoTask[] =>
  [...tasks.values()].filter((task) => task.selfPaced && !isFinished(task));

export function createTask(owner: string, accepted: AcceptedVideoTask, selfPaced = false): SimVideoTask {
  const directives = directivesOf(accepted.prompt);
  const failCode = directives.has('fail') ? (boundedInteger(directives.get('fail'), 0, 99_999) ?? 0) : undefined;
  const task: SimVideoTask = {
    taskId: numericId(),
    owner,
    accepted,
    walk: explicitWalk(directives.get('walk')) ?? walkOf(pollsOf(directives.get('polls')), failCode),
    failCode: failCode ?? 0,
    urlTtlMs: boundedInteger(directives.get('url_ttl_ms'), 1, 7 * 24 * 60 * 60 * 1000) ?? DEFAULT_URL_TTL_MS,
    step: selfPaced ? 1 : 0,
    selfPaced,
    stepMs: boundedInteger(directives.get('step_ms'), 1, 60_000) ?? DEFAULT_STEP_MS,
  };
  remember(tasks, task.taskId, task);
  changes.notify();
  return task;
}

/** The task as `owner` may see it: another key's task is as unknown as a made-up id. */
export function taskOf(owner: string, taskId: string): SimVideoTask | undefined {
  const task = tasks.get(taskId);
  return task?.owner === owner ? task : undefined;
}

/** Counts a poll and answers the status it shows. */
export function pollTask(task: SimVideoTask): string {
  return task.selfPaced ? currentStatus(task) : advance(task);
}

/** Moves the task one step (the last step repeats) and answers its status. */
export function advance(task: SimVideoTask): string {
  const step = Math.min(task.step + 1, task.walk.length);
  if (step !== task.step) {
    task.step = step;
    changes.notify();
  }
  return currentStatus(task);
}

export const currentStatus = (task: SimVideoTask): string => task.walk[Math.max(task.step, 1) - 1]!;

export const isFinished = (task: SimVideoTask): boolean => task.step >= task.walk.length;

function isTask(value: unknown): value is SimVideoTask {
  const task = value as Partial<SimVideoTask> | null;
  return (
    typeof task?.taskId === 'string' &&
    typeof task.owner === 'string' &&
    typeof task.accepted?.resolution === 'string' &&
    Array.isArray(task.walk) &&
    task.walk.length > 0 &&
    typeof task.step === 'number'
  );
}

function walkOf(polls: number, failCode: number | undefined): string[] {
  const early = Array.from({ length: polls - 1 }, (_, i) => EARLY_STEPS[Math.min(i, EARLY_STEPS.length - 1)]!);
  return [...early, failCode === undefined ? 'Success' : 'Fail'];
}

function explicitWalk(text: string | undefined): string[] | undefined {
  const steps = text
    ?.split(',')
    .map((step) => step.trim())
    .filter(Boolean);
  return steps && steps.length > 0 ? steps.slice(0, MAX_WALK_POLLS) : undefined;
}

const pollsOf = (text: string | undefined) => boundedInteger(text, 1, MAX_WALK_POLLS) ?? DEFAULT_WALK_POLLS;

function boundedInteger(text: string | undefined, min: number, max: number): number | undefined {
  const value = Number(text);
  return text !== undefined && Number.isInteger(value) ? Math.min(Math.max(value, min), max) : undefined;
}

const DIRECTIVE = /\[sim:([a-z_]+)(?:=([^\]]*))?\]/g;

function directivesOf(prompt: string): Map<string, string> {
  return new Map([...prompt.matchAll(DIRECTIVE)].map((match) => [match[1]!, match[2] ?? '']));
}
