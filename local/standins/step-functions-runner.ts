/**
 * Runs one state machine definition with aws-local-stepfunctions: Task states whose Resource
 * is a known function ARN call that function's local handler (as Lambda would invoke it),
 * and Wait states and retry pauses can be shortened for a laptop. Tracks task calls in flight,
 * so a stop can let them finish rather than cut a DynamoDB write in half.
 */
import { StateMachine, type RunOptions } from 'aws-local-stepfunctions';

/** A task function as Lambda runs it: JSON in, JSON out, a thrown error's `name` is the error type. */
export type TaskHandler = (input: unknown) => Promise<unknown>;

export interface MachineRunnerOptions {
  readonly definition: Record<string, unknown>;
  /** By function ARN, as the definition's Task states name them. */
  readonly taskHandlers: Readonly<Record<string, TaskHandler>>;
  /** Every Wait state and retry pause takes this long instead. @default - as the definition says */
  readonly waitMs?: number;
  /**
   * The definition is known to be valid (a test checks it): skip the library's check of it, a
   * JSON-schema compile that costs about 150 ms a machine at every start of the runtime.
   * @default false
   */
  readonly validated?: boolean;
}

export type RunOutcome =
  | { readonly status: 'SUCCEEDED'; readonly output: unknown }
  | { readonly status: 'FAILED' | 'TIMED_OUT'; readonly error: string; readonly cause: string }
  | { readonly status: 'ABORTED' };

export interface RunningExecution {
  readonly outcome: Promise<RunOutcome>;
  abort(): void;
}

interface StateSpec {
  readonly Type: string;
  readonly Resource?: string;
  readonly Retry?: unknown[];
}

export class MachineRunner {
  private readonly machine: StateMachine;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly overrides: {
    taskResourceLocalHandlers: Record<string, TaskHandler>;
    waitTimeOverrides: Record<string, number>;
    retryIntervalOverrides: Record<string, number>;
  };

  constructor(options: MachineRunnerOptions) {
    this.machine = new StateMachine(options.definition as never, {
      validationOptions: options.validated ? { noValidate: true } : { checkPaths: false },
    });
    this.overrides = { taskResourceLocalHandlers: {}, waitTimeOverrides: {}, retryIntervalOverrides: {} };
    const states = options.definition['States'] as Record<string, StateSpec>;
    for (const [name, state] of Object.entries(states)) {
      const handler = state.Resource !== undefined ? options.taskHandlers[state.Resource] : undefined;
      if (state.Type === 'Task' && handler) this.overrides.taskResourceLocalHandlers[name] = this.tracked(handler);
      if (state.Type === 'Task' && !handler) throw new Error(`no local handler for task ${name} (${state.Resource})`);
      if (options.waitMs === undefined) continue;
      if (state.Type === 'Wait') this.overrides.waitTimeOverrides[name] = options.waitMs;
      if (state.Retry) this.overrides.retryIntervalOverrides[name] = options.waitMs;
    }
  }

  run(input: unknown): RunningExecution {
    // Handlers return JSON, as Lambda's invoke does; the library's types cannot know that.
    const overrides = this.overrides as unknown as RunOptions['overrides'];
    const execution = this.machine.run(input as never, { overrides, noThrowOnAbort: true });
    const outcome = execution.result.then(
      (output): RunOutcome => (output === null ? { status: 'ABORTED' } : { status: 'SUCCEEDED', output }),
      (error: Error): RunOutcome => failureOf(error),
    );
    return { outcome, abort: () => execution.abort() };
  }

  /** Resolves once every task call started so far has settled. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private tracked(handler: TaskHandler): TaskHandler {
    return (input) => {
      const call = handler(input);
      this.inFlight.add(call);
      void call.then(
        () => this.inFlight.delete(call),
        () => this.inFlight.delete(call),
      );
      return call;
    };
  }
}

/** The library wraps a failure in ExecutionError (its cause is the state's error). */
function failureOf(error: Error): RunOutcome {
  if (error.name === 'ExecutionTimeoutError') {
    return { status: 'TIMED_OUT', error: 'States.Timeout', cause: 'the execution timed out' };
  }
  const cause = error.cause instanceof Error ? error.cause : error;
  return { status: 'FAILED', error: cause.name, cause: cause.message };
}
