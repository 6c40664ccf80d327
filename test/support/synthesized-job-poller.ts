import type { CfnElement } from 'aws-cdk-lib';
import { build, REGION } from '../infra/support.js';

/** A deployed function's ARN, as the synthesized template's `Fn::GetAtt` would resolve. */
export const functionArn = (logicalId: string) => `arn:aws:lambda:${REGION}:123456789012:function:${logicalId}`;

export interface SynthesizedJobPoller {
  /** The state machine's DefinitionString with its tokens resolved, parsed. */
  readonly definition: Record<string, unknown>;
  readonly pollArn: string;
  readonly markFailedArn: string;
  readonly notifyArn: string;
}

/** Synthesizes the stack (no bundling) and reads the job poller's definition out of the template. */
export function synthesizedJobPoller(): SynthesizedJobPoller {
  const { stack, template } = build();
  const logicalId = (construct: { node: { defaultChild: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  // The stack has other machines (the usage export); the job poller is found by its own id.
  const machine = template.toJSON().Resources[logicalId(stack.jobPoller.stateMachine)];
  if (!machine) throw new Error('the template has no job poller state machine');
  return {
    definition: JSON.parse(resolve(machine['Properties']['DefinitionString'])) as Record<string, unknown>,
    pollArn: functionArn(logicalId(stack.jobPoller.poll.fn)),
    markFailedArn: functionArn(logicalId(stack.jobPoller.markFailed.fn)),
    notifyArn: functionArn(logicalId(stack.jobPoller.notify.fn)),
  };
}

/** Fn::Join over strings and function ARNs: all a definition string holds. */
function resolve(node: unknown): string {
  if (typeof node === 'string') return node;
  const object = node as Record<string, unknown>;
  if ('Fn::Join' in object) {
    const [delimiter, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map(resolve).join(delimiter);
  }
  if ('Fn::GetAtt' in object) {
    const [id, attribute] = object['Fn::GetAtt'] as [string, string];
    if (attribute === 'Arn') return functionArn(id);
  }
  throw new Error(`unexpected token in the definition: ${JSON.stringify(node)}`);
}
