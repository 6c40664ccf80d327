import type { Resource, Template } from './template.js';

/**
 * What the cost model reads of a state machine in the template: its Amazon States Language
 * definition, and the loop a polling machine runs. Standard workflows are billed per state
 * transition (every state entered), so a job's cost is how many states its loop enters per
 * poll, times its polls: counted here from the definition, never written down by hand.
 */

/** A state, as far as the cost model reads one. */
export interface State {
  readonly Type: string;
  readonly Next?: string;
  readonly Default?: string;
  readonly Choices?: readonly { readonly Next: string }[];
  readonly Resource?: string;
  readonly Parameters?: Record<string, unknown>;
  /** A Wait's fixed time; a Wait timed from the input has `SecondsPath` instead. */
  readonly Seconds?: number;
}

export interface Definition {
  readonly StartAt: string;
  readonly States: Record<string, State>;
}

/**
 * The definition of an AWS::StepFunctions::StateMachine. The template writes it as a string,
 * or joins strings with intrinsics (the task functions' ARNs); those become `${LogicalId.Attr}`
 * or `${LogicalId}` inside the string, so the result parses and still names what it refers to.
 */
export function definitionOf(resource: Resource): Definition {
  const text = joined(resource.Properties?.['DefinitionString']);
  return JSON.parse(text) as Definition;
}

function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  const object = (value ?? {}) as Record<string, unknown>;
  if (typeof object['Ref'] === 'string') return `\${${object['Ref']}}`;
  const getAtt = object['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return `\${${getAtt.join('.')}}`;
  const join = object['Fn::Join'];
  if (Array.isArray(join)) {
    const [separator, parts] = join as [string, unknown[]];
    return parts.map(joined).join(separator);
  }
  throw new Error(`a state machine definition the cost model cannot read: ${JSON.stringify(value)}`);
}

/**
 * A polling machine's run: some states once (`before`), then the loop once per poll. The last
 * poll leaves the loop at a Choice (`enteredOnLastPoll` states into it) and goes through `exit`
 * to a Succeed. Failure paths (Catch, attempts exhausted) are not a typical run and are left out.
 */
export interface PollingLoop {
  readonly before: readonly string[];
  readonly loop: readonly string[];
  readonly enteredOnLastPoll: number;
  readonly exit: readonly string[];
}

/** Where a state can go on: Next, each Choice, then Default (Catch is a failure path). */
const successors = (state: State): string[] => [
  ...(state.Next ? [state.Next] : []),
  ...(state.Choices ?? []).map((choice) => choice.Next),
  ...(state.Default ? [state.Default] : []),
];

export function pollingLoop(definition: Definition): PollingLoop {
  const path = firstCycle(definition, [definition.StartAt]);
  if (!path) throw new Error('the state machine has no loop: it is not a polling machine');
  const entry = path.indexOf(path[path.length - 1]!);
  const loop = path.slice(entry, -1);
  for (const [index, name] of loop.entries()) {
    const exit = successors(stateOf(definition, name))
      .filter((next) => !loop.includes(next))
      .map((next) => pathToSucceed(definition, next))
      .find((found) => found !== undefined);
    if (exit) return { before: path.slice(0, entry), loop, enteredOnLastPoll: index + 1, exit };
  }
  throw new Error('the polling loop has no way out to a Succeed state');
}

/** Depth first from the path's last state; the path up to and including the first state met twice. */
function firstCycle(definition: Definition, path: readonly string[]): string[] | undefined {
  for (const next of successors(stateOf(definition, path[path.length - 1]!))) {
    if (path.includes(next)) return [...path, next];
    const found = firstCycle(definition, [...path, next]);
    if (found) return found;
  }
  return undefined;
}

/** The shortest run of states from `start` to a Succeed, both included. */
function pathToSucceed(definition: Definition, start: string): string[] | undefined {
  const queue: string[][] = [[start]];
  const seen = new Set([start]);
  for (let path = queue.shift(); path; path = queue.shift()) {
    const state = stateOf(definition, path[path.length - 1]!);
    if (state.Type === 'Succeed') return path;
    for (const next of successors(state).filter((name) => !seen.has(name))) {
      seen.add(next);
      queue.push([...path, next]);
    }
  }
  return undefined;
}

function stateOf(definition: Definition, name: string): State {
  const state = definition.States[name];
  if (!state) throw new Error(`the definition names a state it does not define: ${name}`);
  return state;
}

/** States entered by a run that polls `polls` times (each one a billed transition). */
export const transitionsFor = (run: PollingLoop, polls: number): number =>
  run.before.length + (polls - 1) * run.loop.length + run.enteredOnLastPoll + run.exit.length;

/** Lambda invocations a poll makes: the loop's tasks, by the logical id of the function each calls. */
export function loopFunctions(definition: Definition, run: PollingLoop): string[] {
  return run.loop.flatMap((name) => {
    const id = invokedFunction(stateOf(definition, name));
    return id ? [id] : [];
  });
}

/** A task calling a function by its ARN (or through `lambda:invoke` with FunctionName) names its logical id. */
function invokedFunction(state: State): string | undefined {
  if (state.Type !== 'Task') return undefined;
  const target = state.Parameters?.['FunctionName'] ?? state.Resource;
  return typeof target === 'string' ? /^\$\{([A-Za-z0-9]+)\.Arn\}$/.exec(target)?.[1] : undefined;
}

/** The fixed wait of the loop's Wait state, if it has one (the export machine's 5 minutes). */
export function loopWaitSeconds(definition: Definition, run: PollingLoop): number | undefined {
  return run.loop.map((name) => stateOf(definition, name).Seconds).find((seconds) => seconds !== undefined);
}

/** A state machine's log level in the template: `ALL` logs every history event of every execution. */
export function logLevelOf(template: Template, machineId: string): string {
  const config = template.Resources[machineId]?.Properties?.['LoggingConfiguration'] as { Level?: string } | undefined;
  return config?.Level ?? 'OFF';
}
