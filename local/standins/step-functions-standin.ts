/**
 * A local Step Functions stand-in (JSON 1.0 protocol: StartExecution, DescribeExecution,
 * ListExecutions, StopExecution) that runs the state machine definitions the stack
 * synthesizes, through step-functions-runner.ts. The SDK reaches it through
 * AWS_ENDPOINT_URL_SFN.
 *
 * Executions persist under its data directory. One still running when the stand-in stops is
 * left RUNNING on disk and run again from the top, with the same input, at the next start:
 * the job poller's steps are idempotent, so a resumed execution just goes on polling.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  AwsJsonError,
  epochSeconds,
  loadJsonState,
  optionalString,
  requireString,
  saveJsonState,
  startAwsJsonServer,
  type AwsJsonInput,
  type AwsJsonServer,
} from './aws-json-server.js';
import { MachineRunner, type RunOutcome, type RunningExecution, type TaskHandler } from './step-functions-runner.js';
import type { StandInCredentials } from './signature-check.js';

export interface LocalStateMachine {
  readonly arn: string;
  readonly definition: Record<string, unknown>;
  readonly taskHandlers: Readonly<Record<string, TaskHandler>>;
  /** Checked by a test beforehand: not checked again at start (step-functions-runner.ts). */
  readonly validated?: boolean;
}

export interface StepFunctionsStandInOptions {
  readonly dataDir: string;
  readonly stateMachines: readonly LocalStateMachine[];
  /** Every Wait and retry pause takes this long (`$GATEWAY_JOB_WAIT_MS`). @default as defined */
  readonly waitMs?: number;
  readonly now?: () => number;
  readonly port?: number;
  /** What callers must sign with. @default the process environment's (aws-json-server.ts) */
  readonly credentials?: StandInCredentials;
}

export interface StepFunctionsStandIn extends AwsJsonServer {
  /** Resolves when no execution is running (for tests). */
  idle(): Promise<void>;
}

type Status = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

interface ExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  status: Status;
  startDate: number;
  stopDate?: number;
  output?: string;
  error?: string;
  cause?: string;
}

interface State {
  executions: Record<string, ExecutionRecord>;
}

const NAME = /^[A-Za-z0-9_-]{1,80}$/;
/** A stop lets task calls in flight finish for this long; what is cut is resumed at the next start. */
const SETTLE_MS = 5_000;

export async function startStepFunctionsStandIn(options: StepFunctionsStandInOptions): Promise<StepFunctionsStandIn> {
  const file = join(options.dataDir, 'executions.json');
  const state = loadJsonState<State>(file, () => ({ executions: {} }));
  const now = options.now ?? Date.now;
  const runners = new Map(
    options.stateMachines.map((machine) => [
      machine.arn,
      new MachineRunner({
        definition: machine.definition,
        taskHandlers: machine.taskHandlers,
        waitMs: options.waitMs,
        validated: machine.validated,
      }),
    ]),
  );
  const running = new Map<string, { run: RunningExecution; done: Promise<void> }>();
  let stopping = false;

  function launch(record: ExecutionRecord): void {
    const run = runners.get(record.stateMachineArn)!.run(JSON.parse(record.input));
    const done = run.outcome.then((outcome) => {
      running.delete(record.executionArn);
      if (outcome.status === 'ABORTED' && stopping) return; // left RUNNING: resumed at the next start
      settle(record, outcome);
      saveJsonState(file, state);
    });
    running.set(record.executionArn, { run, done });
  }

  function settle(record: ExecutionRecord, outcome: RunOutcome): void {
    record.status = outcome.status;
    record.stopDate = now();
    if (outcome.status === 'SUCCEEDED') record.output = JSON.stringify(outcome.output ?? null);
    if (outcome.status === 'FAILED' || outcome.status === 'TIMED_OUT') {
      record.error = outcome.error;
      record.cause = outcome.cause;
    }
  }

  const executionOf = (input: AwsJsonInput): ExecutionRecord => {
    const arn = requireString(input, 'executionArn', 'InvalidArn');
    const record = state.executions[arn];
    if (!record) throw new AwsJsonError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return record;
  };

  const server = await startAwsJsonServer({
    targetPrefix: 'AWSStepFunctions',
    jsonVersion: '1.0',
    port: options.port,
    credentials: options.credentials,
    operations: {
      StartExecution: (input) => {
        const stateMachineArn = requireString(input, 'stateMachineArn', 'InvalidArn');
        if (!runners.has(stateMachineArn)) {
          throw new AwsJsonError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
        }
        const name = optionalString(input, 'name', 'InvalidName') ?? randomUUID();
        if (!NAME.test(name)) throw new AwsJsonError('InvalidName', `Invalid Name: '${name}'`);
        const executionInput = optionalString(input, 'input', 'InvalidExecutionInput') ?? '{}';
        try {
          JSON.parse(executionInput);
        } catch {
          throw new AwsJsonError('InvalidExecutionInput', 'Invalid State Machine Execution Input: not JSON');
        }
        const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
        const existing = state.executions[executionArn];
        if (existing) {
          // As in AWS: the same name and input while it runs is the same start; anything else is refused.
          if (existing.status === 'RUNNING' && existing.input === executionInput) {
            return { executionArn, startDate: epochSeconds(existing.startDate) };
          }
          throw new AwsJsonError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
        }
        const record: ExecutionRecord = {
          executionArn,
          stateMachineArn,
          name,
          input: executionInput,
          status: 'RUNNING',
          startDate: now(),
        };
        state.executions[executionArn] = record;
        saveJsonState(file, state);
        launch(record);
        return { executionArn, startDate: epochSeconds(record.startDate) };
      },
      DescribeExecution: (input) => describe(executionOf(input)),
      ListExecutions: (input) => {
        const stateMachineArn = requireString(input, 'stateMachineArn', 'InvalidArn');
        const statusFilter = optionalString(input, 'statusFilter');
        const executions = Object.values(state.executions)
          .filter((record) => record.stateMachineArn === stateMachineArn)
          .filter((record) => statusFilter === undefined || record.status === statusFilter)
          .sort((a, b) => b.startDate - a.startDate)
          .map(summary);
        return { executions };
      },
      StopExecution: async (input) => {
        const record = executionOf(input);
        const execution = running.get(record.executionArn);
        if (record.status === 'RUNNING') {
          record.status = 'ABORTED';
          record.stopDate = now();
          record.error = optionalString(input, 'error');
          record.cause = optionalString(input, 'cause');
          saveJsonState(file, state);
        }
        execution?.run.abort();
        await execution?.done;
        return { stopDate: epochSeconds(record.stopDate ?? now()) };
      },
    },
  });

  for (const record of Object.values(state.executions)) {
    if (record.status === 'RUNNING' && runners.has(record.stateMachineArn)) launch(record);
  }

  return {
    url: server.url,
    idle: async () => {
      while (running.size > 0) await Promise.all([...running.values()].map((execution) => execution.done));
    },
    close: async () => {
      stopping = true;
      for (const execution of running.values()) execution.run.abort();
      const settled = Promise.all([...runners.values()].map((runner) => runner.settled()));
      await Promise.race([settled, new Promise((done) => setTimeout(done, SETTLE_MS).unref())]);
      await Promise.all([...running.values()].map((execution) => execution.done));
      await server.close();
    },
  };
}

function summary(record: ExecutionRecord) {
  return {
    executionArn: record.executionArn,
    stateMachineArn: record.stateMachineArn,
    name: record.name,
    status: record.status,
    startDate: epochSeconds(record.startDate),
    ...(record.stopDate !== undefined ? { stopDate: epochSeconds(record.stopDate) } : {}),
  };
}

function describe(record: ExecutionRecord) {
  return {
    ...summary(record),
    input: record.input,
    ...(record.output !== undefined ? { output: record.output } : {}),
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(record.cause !== undefined ? { cause: record.cause } : {}),
  };
}
