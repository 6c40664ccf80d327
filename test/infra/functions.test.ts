import { ENV } from '../../lambdas/config/environment.js';
import { tableSchemas, type TableName } from '../../lambdas/store/table-schema.js';
import { routes, type Grant } from '../../lib/routes.js';
import { build, functionLogicalId, logicalIdOf, PROVIDER_KEY_PREFIX, roleLogicalId, type Built } from './support.js';

const TABLE_OF_GRANT: Partial<Record<Grant, TableName>> = {
  'identity:read': 'identity', 'identity:write': 'identity',
  'usage:read': 'usage', 'usage:write': 'usage',
  'cache:write': 'cache',
};

describe('endpoint functions', () => {
  let built: Built;
  let resources: Record<string, any>;
  beforeAll(() => {
    built = build({ gatewayVersion: '9.9.9' });
    resources = built.template.toJSON().Resources;
  });

  test.each(routes.map((route) => [route.id, route]))('%s: Node.js 24 on arm64 with the manifest sizing', (_id, route) => {
    const fn = resources[functionLogicalId(built.stack, route.id)];
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: route.memoryMb,
      Timeout: route.timeoutSeconds,
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: { LogFormat: 'JSON' },
    });
    expect(fn.Properties.Environment.Variables).toMatchObject({
      NODE_OPTIONS: '--enable-source-maps',
      [ENV.gatewayVersion]: '9.9.9',
    });
    const logGroupId = fn.Properties.LoggingConfig.LogGroup.Ref;
    expect(resources[logGroupId].Type).toBe('AWS::Logs::LogGroup');
    expect(resources[logGroupId].Properties.RetentionInDays).toBeGreaterThan(0);
    const role = resources[roleLogicalId(built.stack, route.id)];
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  test.each(routes.map((route) => [route.id, route]))('%s: environment names only what its grants touch', (_id, route) => {
    const env = resources[functionLogicalId(built.stack, route.id)].Properties.Environment.Variables;
    const touched = new Set(route.grants.map((grant) => TABLE_OF_GRANT[grant]).filter(Boolean));
    for (const schema of tableSchemas) {
      expect([schema.envVar, env[schema.envVar] !== undefined]).toEqual([schema.envVar, touched.has(schema.name)]);
    }
    const has = (grant: Grant) => route.grants.includes(grant);
    expect(env[ENV.adminTokenSecretId] !== undefined).toBe(has('adminToken:read'));
    expect(env[ENV.platformKeysSecretId] !== undefined).toBe(has('platformKeys:read'));
    // Callers' own provider keys: where their secrets are named, and the key they are encrypted under.
    const usesProviderKeys = has('providerKeys:read') || has('providerKeys:write');
    expect(env[ENV.providerKeySecretPrefix]).toBe(usesProviderKeys ? PROVIDER_KEY_PREFIX : undefined);
    expect(env[ENV.providerKeysKmsKeyId]).toEqual(usesProviderKeys
      ? { 'Fn::GetAtt': [logicalIdOf(built.stack.encryptionKey), 'Arn'] }
      : undefined);
    const usesPool = has('userPool:login') || has('userPool:admin');
    expect(env[ENV.userPoolId] !== undefined).toBe(usesPool);
    expect(env[ENV.userPoolClientId] !== undefined).toBe(usesPool);
  });

  test('the provider-key secret prefix is the stack name\'s, and an output', () => {
    expect(built.stack.providerKeySecretPrefix).toBe(PROVIDER_KEY_PREFIX);
    built.template.hasOutput('ProviderKeySecretPrefix', { Value: PROVIDER_KEY_PREFIX });
    expect(routes.some((route) => route.grants.includes('providerKeys:read'))).toBe(true);
    expect(routes.some((route) => route.grants.includes('providerKeys:write'))).toBe(true);
  });

  test('the CORS origin list defaults to empty', () => {
    for (const route of routes) {
      expect(resources[functionLogicalId(built.stack, route.id)].Properties.Environment.Variables[ENV.allowedOrigins]).toBe('');
    }
  });
});
