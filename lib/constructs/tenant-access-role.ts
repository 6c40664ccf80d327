import { createHash } from 'node:crypto';
import { ArnFormat, Aws, Duration, Stack, Tags, Validations } from 'aws-cdk-lib';
import { ArnPrincipal, CfnRole, PolicyDocument, PolicyStatement, Role, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import {
  PRINCIPAL_ACCOUNT,
  TENANT_MAX_SESSION_SECONDS,
  TENANT_READER_TAG,
  TENANT_SECRET_READ,
  TENANT_SESSION_ACTIONS,
  TENANT_SESSION_TAG_KEY,
  TENANT_TABLE_READS,
} from '../tenant-access-policy.js';
import { nagResourceName } from './endpoint-access.js';
import type { Tables } from './tables.js';

export interface TenantAccessRoleProps {
  readonly tables: Tables;
  readonly encryptionKey: IKey;
  /** Name prefix of the provider-key secrets (`<stack>/provider-keys/`). */
  readonly providerKeySecretPrefix: string;
}

/** `<stack>-TenantAccess`, shortened with a digest where the stack's name is long (IAM allows 64). */
export function tenantRoleName(stackName: string): string {
  const name = `${stackName}-TenantAccess`;
  if (name.length <= 64) return name;
  const digest = createHash('sha256').update(stackName).digest('hex').slice(0, 8);
  return `${stackName.slice(0, 64 - 22)}-${digest}-TenantAccess`;
}

/**
 * The role tenant-facing reads run under (docs/deployment.md, "Isolation by IAM"): a function
 * assumes it with the caller's account as the `account` session tag, and its policy matches
 * that tag, so a defect in a function's code cannot read another account's provider keys,
 * usage or session records.
 *
 * Trust: only the roles of the functions that need it (`trust`), and only with an `account`
 * session tag, the only tag, never transitive (a session cannot pass its tag on by chaining).
 * The trust names this account and requires the caller's role to carry the reader tag with this
 * stack's id: a list of the roles' ARNs would outgrow IAM's 2,048-character trust policy once
 * twenty functions read under tenant sessions. Both sides hold: a role needs the tag (only this
 * stack sets it, on exactly the roles `trust` is given; tagging a role is an IAM administrator's
 * act) and the two actions on this role in its own policy (the same functions' grants).
 */
export class TenantAccessRole extends Construct {
  readonly role: Role;
  /**
   * The role's ARN built from its fixed name, not read from the role: the trusted functions'
   * roles name it in their own inline policies while the role's trust names them, and a
   * reference either way round would be a cycle CloudFormation refuses.
   */
  readonly roleArn: string;
  private readonly trustStatement: PolicyStatement;
  private trusted = 0;

  constructor(scope: Construct, id: string, props: TenantAccessRoleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.trustStatement = new PolicyStatement({
      actions: [...TENANT_SESSION_ACTIONS],
      principals: [new ArnPrincipal(stack.formatArn({ service: 'iam', region: '', resource: 'root' }))],
      conditions: {
        StringEquals: { [`aws:PrincipalTag/${TENANT_READER_TAG}`]: Aws.STACK_ID },
        StringLike: { [`aws:RequestTag/${TENANT_SESSION_TAG_KEY}`]: '?*' },
        'ForAllValues:StringEquals': { 'aws:TagKeys': [TENANT_SESSION_TAG_KEY] },
        Null: { 'sts:TransitiveTagKeys': 'true' },
      },
    });
    const keyArn = props.encryptionKey.keyArn;
    const secretPrefixArn = stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${props.providerKeySecretPrefix}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const roleName = tenantRoleName(stack.stackName);
    this.roleArn = stack.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: roleName });
    this.role = new Role(this, 'Role', {
      roleName,
      // Replaced below by the trust statement the functions' roles are added to.
      assumedBy: new ArnPrincipal(stack.formatArn({ service: 'iam', region: '', resource: 'root' })),
      description: "AI gateway: one account's provider keys, usage and session records, under its session tag",
      maxSessionDuration: Duration.seconds(TENANT_MAX_SESSION_SECONDS),
      inlinePolicies: {
        TenantReads: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: [...TENANT_SECRET_READ.actions],
              resources: [secretPrefixArn],
              conditions: {
                StringEquals: { [`secretsmanager:ResourceTag/${TENANT_SECRET_READ.resourceTag}`]: PRINCIPAL_ACCOUNT },
              },
            }),
            ...TENANT_TABLE_READS.map(
              (read) =>
                new PolicyStatement({
                  actions: [...read.actions],
                  resources: [props.tables.get(read.table).table.tableArn],
                  conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...read.leadingKeys] } },
                }),
            ),
            // The services use the stack key on the session's behalf, and only they may.
            new PolicyStatement({
              actions: ['kms:Decrypt'],
              resources: [keyArn],
              conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${stack.region}.amazonaws.com` } },
            }),
            new PolicyStatement({
              actions: ['kms:Decrypt', 'kms:DescribeKey'],
              resources: [keyArn],
              conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${stack.region}.amazonaws.com` } },
            }),
          ],
        }),
      },
    });
    (this.role.node.defaultChild as CfnRole).assumeRolePolicyDocument = new PolicyDocument({
      statements: [this.trustStatement],
    });
    this.node.addValidation({
      validate: () => (this.trusted === 0 ? ['no function is trusted to assume the tenant-access role'] : []),
    });
    Validations.of(this.role.node.defaultChild!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResourceName(stack, secretPrefixArn)}]`,
      reason:
        "GetSecretValue on callers' provider-key secrets, one secret per stored key created at runtime as " +
        `${props.providerKeySecretPrefix}<accountId>/<keyId>, so no ARN exists at deploy time. The name prefix ` +
        "keeps it to this stack's provider-key secrets, and the statement's condition to the one secret set " +
        "whose gateway:account tag is the session's own account tag: another account's key does not match.",
    });
  }

  /**
   * Lets `role` open tenant sessions: it carries the reader tag the trust asks for (its own policy
   * gets the two actions on this role from its grants).
   */
  trust(role: IRole): void {
    Tags.of(role).add(TENANT_READER_TAG, Aws.STACK_ID);
    this.trusted++;
  }
}
