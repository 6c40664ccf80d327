import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupSelection, BackupVault } from 'aws-cdk-lib/aws-backup';
import { Schedule } from 'aws-cdk-lib/aws-events';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** How long a daily backup is kept. */
export const DEFAULT_BACKUP_RETENTION = Duration.days(35);

export interface TableBackupsProps {
  /** The tables whose records cannot be rebuilt (keys and accounts, the ledger, jobs and arena ballots). */
  readonly tables: readonly ITableV2[];
  /** @default DEFAULT_BACKUP_RETENTION */
  readonly retention?: Duration;
  /**
   * A backup vault in another region or account that every recovery point is copied to, kept as
   * long. Its access policy must let this account copy into it. @default - no copy
   */
  readonly copyToVaultArn?: string;
}

/**
 * Daily AWS Backup recovery points of the business tables, beside their point-in-time
 * recovery (35 days, same region, same key): a vault under its own KMS key, retained with the
 * stack's data, so a deleted stack, a dropped table or a lost table key still leaves backups;
 * optionally copied to a vault in another region or account. Restores are documented in
 * docs/deployment.md ("Restoring").
 */
export class TableBackups extends Construct {
  readonly vault: BackupVault;
  readonly plan: BackupPlan;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: TableBackupsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const retention = props.retention ?? DEFAULT_BACKUP_RETENTION;
    this.key = new Key(this, 'Key', {
      description: `AI gateway ${stackName}: backup vault`,
      alias: `alias/${stackName}-backups`,
      enableKeyRotation: true,
      rotationPeriod: Duration.days(365),
      pendingWindow: Duration.days(30),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.vault = new BackupVault(this, 'Vault', {
      backupVaultName: `${stackName}-backups`,
      encryptionKey: this.key,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.plan = new BackupPlan(this, 'Plan', {
      backupPlanName: `${stackName}-tables`,
      backupVault: this.vault,
      backupPlanRules: [
        new BackupPlanRule({
          ruleName: 'Daily',
          // 03:00 UTC, after the 00:15 usage export; a backup takes minutes for these tables.
          scheduleExpression: Schedule.cron({ minute: '0', hour: '3' }),
          startWindow: Duration.hours(1),
          completionWindow: Duration.hours(8),
          deleteAfter: retention,
          copyActions: props.copyToVaultArn
            ? [
                {
                  destinationBackupVault: BackupVault.fromBackupVaultArn(this, 'CopyVault', props.copyToVaultArn),
                  deleteAfter: retention,
                },
              ]
            : undefined,
        }),
      ],
    });
    const selection = new BackupSelection(this, 'Tables', {
      backupPlan: this.plan,
      resources: props.tables.map((table) => BackupResource.fromArn(table.tableArn)),
      allowRestores: true,
    });
    for (const policy of ['AWSBackupServiceRolePolicyForBackup', 'AWSBackupServiceRolePolicyForRestores']) {
      Validations.of(selection).acknowledge({
        id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`,
        reason:
          `AWS Backup's role uses the service's own managed policy ${policy}, which AWS maintains as the ` +
          'service changes; the role is assumable by AWS Backup alone, which acts on what the selection names.',
      });
    }
  }
}
