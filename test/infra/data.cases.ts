import { Match } from 'aws-cdk-lib/assertions';
import { tableSchemas } from '../../lambdas/store/table-schema.js';
import { build, logicalIdOf, type Built } from './support.js';

describe('data stores', () => {
  let built: Built;
  let keyId: string;
  beforeAll(() => {
    built = build();
    keyId = logicalIdOf(built.stack.encryptionKey);
  });

  test('customer-managed KMS keys, rotated yearly and retained with the data (once created): the data key and the backup vault key', () => {
    const keys = built.template.findResources('AWS::KMS::Key');
    expect(Object.keys(keys).sort()).toEqual(
      [logicalIdOf(built.stack.encryptionKey), logicalIdOf(built.stack.backups!.key)].sort(),
    );
    for (const key of Object.values(keys)) {
      expect(key.Properties).toMatchObject({ EnableKeyRotation: true, RotationPeriodInDays: 365 });
      expect(key.DeletionPolicy).toBe('RetainExceptOnCreate');
    }
  });

  test.each(tableSchemas.map((schema) => [schema.name, schema]))('table %s', (_name, schema) => {
    const id = logicalIdOf(built.stack.tables.get(schema.name).table);
    const resource = built.template.toJSON().Resources[id];
    expect(resource.Type).toBe('AWS::DynamoDB::GlobalTable');
    const props = resource.Properties;
    expect(props.BillingMode).toBe('PAY_PER_REQUEST');
    expect(props.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(props.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(props.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
    expect(props.Replicas).toHaveLength(1);
    const replica = props.Replicas[0];
    expect(replica.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(replica.SSESpecification.KMSMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(Boolean(replica.DeletionProtectionEnabled)).toBe(schema.deletionProtection);
    expect(resource.DeletionPolicy).toBe(schema.deletionProtection ? 'RetainExceptOnCreate' : 'Delete');
    expect(props.GlobalSecondaryIndexes ?? []).toEqual(
      schema.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    );
  });

  test('the schema still protects exactly identity and usage', () => {
    const protectedTables = tableSchemas.filter((schema) => schema.deletionProtection).map((schema) => schema.name);
    expect(protectedTables.sort()).toEqual(['identity', 'usage']);
  });

  test('the admin token is generated (48 chars, no punctuation) under the customer key', () => {
    built.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true },
      KmsKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
      SecretString: Match.absent(),
    });
  });

  test('the platform provider keys start as an empty JSON object under the customer key', () => {
    built.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      SecretString: '{}',
      KmsKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    built.template.resourceCountIs('AWS::SecretsManager::Secret', 3);
  });

  test('the prompt service key starts without any value under the customer key, and is an output', () => {
    // Neither an empty SecretString (CloudFormation requires at least one character) nor a generated
    // one (it would be sent as the bearer key): no version exists until the operator sets the key.
    const id = logicalIdOf(built.stack.secrets.promptServiceKey);
    const resource = built.template.toJSON().Resources[id];
    expect(resource.Type).toBe('AWS::SecretsManager::Secret');
    expect(resource.Properties.KmsKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(resource.Properties.SecretString).toBeUndefined();
    expect(resource.Properties.GenerateSecretString).toBeUndefined();
    built.template.hasOutput('PromptServiceKeySecretArn', { Value: { Ref: id } });
  });

  test('dashboard accounts: email usernames, strong passwords, admin-created only', () => {
    built.template.hasResourceProperties('AWS::Cognito::UserPool', {
      UsernameAttributes: ['email'],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: {
        PasswordPolicy: {
          MinimumLength: Match.anyValue(),
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        },
      },
      UserPoolTier: 'ESSENTIALS',
    });
    const pool = Object.values(built.template.findResources('AWS::Cognito::UserPool'))[0]!;
    // Threat protection would score the login function's addresses, not the user's: none is set.
    expect(pool.Properties.UserPoolAddOns).toBeUndefined();
    expect(pool.Properties.Policies.PasswordPolicy.MinimumLength).toBeGreaterThanOrEqual(12);
  });

  test('the app client signs in with USER_PASSWORD_AUTH and has no secret', () => {
    built.template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      ExplicitAuthFlows: Match.arrayWith(['ALLOW_USER_PASSWORD_AUTH']),
      GenerateSecret: false,
    });
    const client = Object.values(built.template.findResources('AWS::Cognito::UserPoolClient'))[0]!;
    expect(client.Properties.ExplicitAuthFlows).not.toContain('ALLOW_ADMIN_USER_PASSWORD_AUTH');
  });
});
