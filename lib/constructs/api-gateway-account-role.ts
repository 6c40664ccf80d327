import { CfnDeletionPolicy, type CfnResource, CustomResource, Duration, Stack, Validations } from 'aws-cdk-lib';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { EndpointFunction, type FunctionSource } from './endpoint-function.js';

/**
 * API Gateway writes execution logs with one role per account and region, shared by every API
 * there, and refuses stage logging while none is set. What the stack does about it:
 * - `ifUnset`: sets its own role only where the account has none (a fresh account), through a
 *   custom resource; never changes one that is set, on create, update or delete.
 * - `set`: sets its own role unconditionally (`AWS::ApiGateway::Account`), replacing whatever
 *   another stack or team had set.
 * - `leave`: nothing; the operator guarantees the account has a role.
 */
export const API_GATEWAY_ACCOUNT_ROLE_MODES = ['ifUnset', 'set', 'leave'] as const;
export type ApiGatewayAccountRoleMode = (typeof API_GATEWAY_ACCOUNT_ROLE_MODES)[number];
export const DEFAULT_API_GATEWAY_ACCOUNT_ROLE_MODE: ApiGatewayAccountRoleMode = 'ifUnset';

/** The custom resource's function: two API Gateway calls and IAM propagation waits of about a minute. */
export const ACCOUNT_ROLE_FUNCTION: FunctionSource = {
  entry: 'lambdas/handlers/account-role-claim.ts',
  memoryMb: 256,
  timeoutSeconds: 120,
};

export const ACCOUNT_ROLE_RESOURCE_TYPE = 'Custom::ApiGatewayAccountRole';

/** The AWS-managed policy API Gateway documents for this role. */
const PUSH_TO_CLOUDWATCH_LOGS = 'service-role/AmazonAPIGatewayPushToCloudWatchLogs';

/**
 * The role the account setting may name is kept on every delete, a failed first create's too
 * (plain `Retain`, not the stack's RetainExceptOnCreate): the setting may already point at it
 * when the create rolls back, and a deleted role there would break execution logging for every
 * API in the account and region. Its name is generated, so a retry never meets it.
 */
export function keepAccountRole(role: Role): void {
  const resource = role.node.defaultChild as CfnResource;
  // An override, because the stack's aspect turns every Retain policy into RetainExceptOnCreate.
  resource.addOverride('DeletionPolicy', CfnDeletionPolicy.RETAIN);
  resource.addOverride('UpdateReplacePolicy', CfnDeletionPolicy.RETAIN);
  Validations.of(resource).acknowledge({
    id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${PUSH_TO_CLOUDWATCH_LOGS}]`,
    reason:
      'This is the role API Gateway itself assumes (account setting) to write execution logs; AWS ' +
      'documents this service-role policy for it, and it only grants CloudWatch Logs writes.',
  });
}

/** The stack's role, claimed for the account only where the account has none. */
export class UnsetAccountRoleClaim extends Construct {
  readonly role: Role;
  readonly handler: EndpointFunction;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway execution logging (the account setting, where it had none)',
      // Logs of any API in the account: once the setting names it, every API there logs with it.
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName(PUSH_TO_CLOUDWATCH_LOGS)],
    });
    keepAccountRole(this.role);

    const accountSettings = Stack.of(this).formatArn({ service: 'apigateway', account: '', resource: '/account' });
    this.handler = new EndpointFunction(this, 'Function', {
      route: ACCOUNT_ROLE_FUNCTION,
      description: 'AI gateway deployment: sets the API Gateway CloudWatch role where the account has none',
      statements: [
        new PolicyStatement({ actions: ['apigateway:GET', 'apigateway:PATCH'], resources: [accountSettings] }),
        new PolicyStatement({
          actions: ['iam:PassRole'],
          resources: [this.role.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': 'apigateway.amazonaws.com' } },
        }),
      ],
    });
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: this.handler.fn.functionArn,
      resourceType: ACCOUNT_ROLE_RESOURCE_TYPE,
      properties: { RoleArn: this.role.roleArn },
      // The function always answers within its own timeout; this bounds a deploy if it could not.
      serviceTimeout: Duration.seconds(ACCOUNT_ROLE_FUNCTION.timeoutSeconds * 2),
    });
  }
}
