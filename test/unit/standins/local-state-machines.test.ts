import { MachineRunner } from '../../../local/standins/step-functions-runner.js';
import {
  LOCAL_TASK_FUNCTION_ARNS,
  localStateMachineDefinitions,
} from '../../../local/standins/step-functions-local.js';

/**
 * The local runtime runs its two state machines without the library's check of their
 * definitions (it costs a JSON-schema compile at every start): this is that check, once.
 */
const taskHandlers = Object.fromEntries(LOCAL_TASK_FUNCTION_ARNS.map((arn) => [arn, async () => ({})]));

test.each(localStateMachineDefinitions().map((machine) => [machine.arn, machine.definition]))(
  '%s is valid States language',
  (_arn, definition) => {
    expect(() => new MachineRunner({ definition, taskHandlers })).not.toThrow();
  },
);

test('the check is real: a definition whose StartAt names no state is refused, unless told it was checked', () => {
  const { definition } = localStateMachineDefinitions()[0]!;
  const broken = { ...definition, StartAt: 'NoSuchState' };
  expect(() => new MachineRunner({ definition: broken, taskHandlers })).toThrow();
  expect(() => new MachineRunner({ definition: broken, taskHandlers, validated: true })).not.toThrow();
});
