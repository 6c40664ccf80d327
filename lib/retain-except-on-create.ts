import { CfnDeletionPolicy, CfnResource, type IAspect } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * What the stack keeps on delete (tables, the KMS key, the user pool, buckets, log groups) is
 * kept only once it has been created: `DeletionPolicy: RetainExceptOnCreate`. A first create
 * that fails and rolls back then leaves nothing behind, so the retry does not meet its own
 * orphans ("already exists"), while an update or a delete of a working stack still keeps them.
 * Applied as an aspect so no construct of the stack, present or future, can forget it.
 */
export class RetainExceptOnCreate implements IAspect {
  visit(node: IConstruct): void {
    if (!(node instanceof CfnResource)) return;
    if (node.cfnOptions.deletionPolicy === CfnDeletionPolicy.RETAIN)
      node.cfnOptions.deletionPolicy = CfnDeletionPolicy.RETAIN_EXCEPT_ON_CREATE;
  }
}
