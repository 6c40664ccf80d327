import { Match } from 'aws-cdk-lib/assertions';
import { tableSchemas } from '../../lambdas/store/table-schema.js';
import { ENV } from '../../lambdas/config/environment.js';
import { routes } from '../../lib/routes.js';
import { DEFAULT_CLIENT_AUTH_FLOWS } from '../../local/standins/cognito.js';
import { build, functionLogicalId, logicalIdOf, type Built } from './support.js';

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

  test('the app client allows the admin password flow and refresh tokens only: its public id signs no one in', () => {
    const clients = Object.values(built.template.findResources('AWS::Cognito::UserPoolClient'));
    expect(clients).toHaveLength(1);
    const client = clients[0]!.Properties;
    expect([...client.ExplicitAuthFlows].sort()).toEqual([
      'ALLOW_ADMIN_USER_PASSWORD_AUTH',
      'ALLOW_REFRESH_TOKEN_AUTH',
    ]);
    expect(client.GenerateSecret).toBe(false);
    // A set-up begun at sign-in keeps the MFA_SETUP session until its code: the pending set-up's 10 minutes.
    expect(client.AuthSessionValidity).toBe(10);
    // The local stand-in enforces the same flows (local/standins/cognito.ts).
    expect([...client.ExplicitAuthFlows].sort()).toEqual([...DEFAULT_CLIENT_AUTH_FLOWS].sort());
  });

  test('MFA: TOTP only (no SMS), optional per user by default', () => {
    const pool = Object.values(built.template.findResources('AWS::Cognito::UserPool'))[0]!.Properties;
    expect(pool.MfaConfiguration).toBe('OPTIONAL');
    expect(pool.EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA']);
    expect(pool.SmsConfiguration).toBeUndefined();
  });

  test("dashboardMfa required: the pool's MFA is on, and the sign-in functions are told so", () => {
    const required = build({ dashboardMfa: 'required' });
    const pool = Object.values(required.template.findResources('AWS::Cognito::UserPool'))[0]!.Properties;
    expect(pool.MfaConfiguration).toBe('ON');
    expect(pool.EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA']);
    for (const route of routes.filter((r) => r.grants.includes('userPool:login'))) {
      const fn = required.template.toJSON().Resources[functionLogicalId(required.stack, route.id)];
      expect(fn.Properties.Environment.Variables[ENV.dashboardMfa]).toBe('required');
    }
  });
});
