import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export interface EncryptionKeyProps {
  /** @default `alias/<stack name>`, so several gateway stacks can share an account and region */
  readonly alias?: string;
}

/**
 * The customer-managed key behind every table and secret. It is retained with the stack's
 * data: a deleted key would make the retained identity and usage tables unreadable.
 */
export class EncryptionKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: EncryptionKeyProps = {}) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'AI gateway: DynamoDB tables and Secrets Manager secrets',
      alias: props.alias ?? `alias/${Stack.of(this).stackName}`,
      enableKeyRotation: true,
      rotationPeriod: Duration.days(365),
      pendingWindow: Duration.days(30),
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
