import { Duration } from 'aws-cdk-lib';
import { build, logicalIdOf } from './support.js';

/** Daily AWS Backup of the business tables (lib/constructs/table-backups.ts). */

describe('table backups', () => {
  test('a daily plan backs up identity, usage and jobs (not the cache) into a retained vault under its own key', () => {
    const { stack, template } = build();
    const tableIds = (names: string[]) => names.map((name) => logicalIdOf(stack.tables.get(name as never).table));
    template.hasResourceProperties('AWS::Backup::BackupPlan', {
      BackupPlan: {
        BackupPlanRule: [
          {
            RuleName: 'Daily',
            ScheduleExpression: 'cron(0 3 * * ? *)',
            Lifecycle: { DeleteAfterDays: 35 },
          },
        ],
      },
    });
    const selection = Object.values(template.findResources('AWS::Backup::BackupSelection'))[0]!;
    const resources = (selection.Properties.BackupSelection.Resources as { 'Fn::GetAtt': [string, string] }[]).map(
      (resource) => resource['Fn::GetAtt'][0],
    );
    expect(resources.sort()).toEqual(tableIds(['identity', 'usage', 'jobs']).sort());
    const vault = Object.values(template.findResources('AWS::Backup::BackupVault'))[0]!;
    expect(vault.DeletionPolicy).toBe('RetainExceptOnCreate');
    expect(vault.Properties.EncryptionKeyArn).toEqual({ 'Fn::GetAtt': [logicalIdOf(stack.backups!.key), 'Arn'] });
    // Not the tables' key: losing one key must not lose both the tables and their backups.
    expect(logicalIdOf(stack.backups!.key)).not.toBe(logicalIdOf(stack.encryptionKey));
    const keys = template.findResources('AWS::KMS::Key');
    expect(keys[logicalIdOf(stack.backups!.key)]!.DeletionPolicy).toBe('RetainExceptOnCreate');
  });

  test('a copy vault receives every recovery point, kept as long', () => {
    const vault = 'arn:aws:backup:eu-central-1:210987654321:backup-vault:gateway-copies';
    const { template } = build({ backups: { retention: Duration.days(90), copyToVaultArn: vault } });
    template.hasResourceProperties('AWS::Backup::BackupPlan', {
      BackupPlan: {
        BackupPlanRule: [
          {
            Lifecycle: { DeleteAfterDays: 90 },
            CopyActions: [{ DestinationBackupVaultArn: vault, Lifecycle: { DeleteAfterDays: 90 } }],
          },
        ],
      },
    });
  });

  test('backups off: no plan, no vault', () => {
    const { template } = build({ backups: false });
    template.resourceCountIs('AWS::Backup::BackupPlan', 0);
    template.resourceCountIs('AWS::Backup::BackupVault', 0);
  });
});
