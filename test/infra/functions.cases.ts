import { ENV } from '../../lambdas/config/environment.js';
import { readConfiguration } from '../../lambdas/config/configuration.js';
import { moderatorFor, type ModeratorDeps, type ApplyGuardrailSend } from '../../lambdas/chat/guardrails/moderation.js';
import { tableSchemas, type TableName } from '../../lambdas/store/table-schema.js';
import { routes, type Grant } from '../../lib/routes.js';
import {
  build,
  functionLogicalId,
  logicalIdOf,
  PROVIDER_KEY_PREFIX,
  roleLogicalId,
  WEBHOOK_SECRET_PREFIX,
  syntheticRoute,
  type Built,
} from './support.js';

const TABLE_OF_GRANT: Partial<Record<Grant, TableName>> = {
  'identity:read': 'identity',
  'identity:write': 'identity',
  'usage:read': 'usage',
  'usage:append': 'usage',
  // Read under a tenant session: the role is told the table's name and holds no action on it.
  'requestLog:readOwn': 'usage',
  'requestContent:write': 'jobs',
  'requestContent:readOwn': 'jobs',
  'usage:readOwn': 'usage',
  'arenaSessions:readOwn': 'jobs',
  'jobs:readOwn': 'jobs',
  'budgets:reserve': 'identity',
  'budgets:read': 'identity',
  'rateLimits:count': 'cache',
  'answers:cache': 'cache',
  'idempotency:write': 'cache',
  'signIns:write': 'cache',
  'arenaSessions:write': 'jobs',
  'arenaSessions:read': 'jobs',
  'jobs:read': 'jobs',
  'jobs:write': 'jobs',
  'responses:write': 'jobs',
  'responses:readOwn': 'jobs',
  'responses:delete': 'jobs',
};

describe('endpoint functions', () => {
  let built: Built;
  let resources: Record<string, any>;
  beforeAll(() => {
    built = build({ gatewayVersion: '9.9.9' });
    resources = built.template.toJSON().Resources;
  });

  test.each(routes.map((route) => [route.id, route]))(
    '%s: Node.js 24 on arm64 with the manifest sizing',
    (_id, route) => {
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
    },
  );

  test.each(routes.map((route) => [route.id, route]))(
    '%s: environment names only what its grants touch',
    (_id, route) => {
      const env = resources[functionLogicalId(built.stack, route.id)].Properties.Environment.Variables;
      const touched = new Set(route.grants.map((grant) => TABLE_OF_GRANT[grant]).filter(Boolean));
      for (const schema of tableSchemas) {
        expect([schema.envVar, env[schema.envVar] !== undefined]).toEqual([schema.envVar, touched.has(schema.name)]);
      }
      const has = (grant: Grant) => route.grants.includes(grant);
      expect(env[ENV.adminTokenSecretId] !== undefined).toBe(has('adminToken:read'));
      // The edge secret exists only with the console's distribution, which this stack has not.
      expect(env[ENV.edgeSecretId]).toBeUndefined();
      expect(env[ENV.platformKeysSecretId] !== undefined).toBe(has('platformKeys:read'));
      // Only the submit routes are told which machine polls jobs.
      expect(env[ENV.jobStateMachineArn] !== undefined).toBe(has('jobs:start'));
      // Callers' own provider keys: where their secrets are named, and the key they are encrypted
      // under, for the routes that make and delete them; readers read by ARN under a tenant session.
      const usesProviderKeys = has('providerKeys:create') || has('providerKeys:delete');
      const opensTenantSessions =
        has('providerKeys:read') ||
        has('usage:readOwn') ||
        has('requestLog:readOwn') ||
        has('requestContent:readOwn') ||
        has('arenaSessions:readOwn') ||
        has('jobs:readOwn') ||
        has('responses:readOwn');
      expect(env[ENV.tenantAccessRoleArn] !== undefined).toBe(opensTenantSessions);
      expect(env[ENV.providerKeySecretPrefix]).toBe(usesProviderKeys ? PROVIDER_KEY_PREFIX : undefined);
      expect(env[ENV.providerKeysKmsKeyId]).toEqual(
        usesProviderKeys ? { 'Fn::GetAtt': [logicalIdOf(built.stack.encryptionKey), 'Arn'] } : undefined,
      );
      const usesWebhookSecrets = route.grants.some((grant) => grant.startsWith('webhookSecrets:'));
      expect(env[ENV.webhookSecretPrefix]).toBe(usesWebhookSecrets ? WEBHOOK_SECRET_PREFIX : undefined);
      const usesPool = has('userPool:login') || has('userPool:admin');
      expect(env[ENV.userPoolId] !== undefined).toBe(usesPool);
      expect(env[ENV.userPoolClientId] !== undefined).toBe(usesPool);
      // Only the sign-in functions are told whether MFA is required, and the authenticator issuer.
      expect(env[ENV.dashboardMfa]).toBe(has('userPool:login') ? 'optional' : undefined);
      expect(env[ENV.totpIssuer]).toBe(has('userPool:login') ? built.stack.stackName : undefined);
      // The prompt service key secret is named whenever the grant is held; the rest needs context.
      expect(env[ENV.promptServiceKeySecretId]).toEqual(
        has('promptService:read') ? { Ref: logicalIdOf(built.stack.secrets.promptServiceKey) } : undefined,
      );
      for (const name of [
        ENV.promptServiceUrl,
        ENV.guardrailId,
        ENV.guardrailVersion,
        ENV.moderationUrl,
        ENV.moderationKeySecretId,
        ENV.imageDescriberModel,
        ENV.themesProviderUrl,
      ]) {
        expect([name, env[name]]).toEqual([name, undefined]);
      }
    },
  );

  test("no function of the stack is given the local runtime's webhook receivers (a hole in the public-URL policy)", () => {
    const functions = Object.values(resources).filter((resource: any) => resource.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(routes.length);
    for (const fn of functions as any[]) {
      expect(Object.keys(fn.Properties.Environment?.Variables ?? {})).not.toContain(ENV.localWebhookReceivers);
    }
  });

  test("the provider-key secret prefix is the stack name's, and an output", () => {
    expect(built.stack.providerKeySecretPrefix).toBe(PROVIDER_KEY_PREFIX);
    built.template.hasOutput('ProviderKeySecretPrefix', { Value: PROVIDER_KEY_PREFIX });
    expect(routes.some((route) => route.grants.includes('providerKeys:read'))).toBe(true);
    expect(routes.some((route) => route.grants.includes('providerKeys:create'))).toBe(true);
    expect(routes.some((route) => route.grants.includes('providerKeys:delete'))).toBe(true);
  });

  test('the CORS origin list defaults to empty', () => {
    for (const route of routes) {
      expect(
        resources[functionLogicalId(built.stack, route.id)].Properties.Environment.Variables[ENV.allowedOrigins],
      ).toBe('');
    }
  });
});

describe('optional context: prompt service, Bedrock guardrail, image describer, theme provider', () => {
  const PROMPTS = 'https://prompts.example.com/base';
  const THEMES = 'https://themes.example.com/v1';
  let built: Built;
  let resources: Record<string, any>;
  const envOf = (b: Built, routeId: string) =>
    b.template.toJSON().Resources[functionLogicalId(b.stack, routeId)].Properties.Environment.Variables;
  beforeAll(() => {
    built = build({
      promptServiceUrl: PROMPTS,
      themesProviderUrl: THEMES,
      guardrail: { id: 'abc123def456', version: '4' },
      imageDescriberModel: 'claude',
      legacyChatSunset: '2027-06-30',
    });
    resources = built.template.toJSON().Resources;
  });

  test.each(routes.map((route) => [route.id, route]))(
    '%s: each value reaches exactly the functions that use it',
    (_id, route) => {
      const env = resources[functionLogicalId(built.stack, route.id)].Properties.Environment.Variables;
      const has = (grant: Grant) => route.grants.includes(grant);
      expect(env[ENV.promptServiceUrl]).toBe(has('promptService:read') ? PROMPTS : undefined);
      expect(env[ENV.themesProviderUrl]).toBe(has('themesProvider:read') ? THEMES : undefined);
      expect(env[ENV.guardrailId]).toBe(has('guardrails:apply') ? 'abc123def456' : undefined);
      expect(env[ENV.guardrailVersion]).toBe(has('guardrails:apply') ? '4' : undefined);
      const describes = ['chat-completions', 'images-analyze', 'responses-create'].includes(route.id);
      expect(env[ENV.imageDescriberModel]).toBe(describes ? 'claude' : undefined);
      expect(env[ENV.legacyChatSunset]).toBe(route.id === 'chat-legacy' ? '2027-06-30' : undefined);
    },
  );

  test('the themes route holds the theme provider grant', () => {
    expect(routes.find((route) => route.id === 'themes-get')!.grants).toContain('themesProvider:read');
  });

  test('chat completions holds both new grants', () => {
    const chat = routes.find((route) => route.id === 'chat-completions')!;
    expect(chat.grants).toEqual(expect.arrayContaining(['promptService:read', 'guardrails:apply']));
  });

  test('without a guardrail version the function is left to its default (DRAFT)', () => {
    const env = envOf(build({ guardrail: { id: 'abc123def456' } }), 'chat-completions');
    expect(env[ENV.guardrailId]).toBe('abc123def456');
    expect(env[ENV.guardrailVersion]).toBeUndefined();
  });

  test('a guardrail ARN is passed through as the identifier', () => {
    const arn = 'arn:aws:bedrock:eu-west-1:111122223333:guardrail/abc123def456';
    expect(envOf(build({ guardrail: { id: arn, version: '1' } }), 'chat-completions')[ENV.guardrailId]).toBe(arn);
  });

  test('an image describer without the chat completions route is refused, not silently dropped', () => {
    const routesWithoutChat = [syntheticRoute({ id: 'other', path: '/other' })];
    expect(() => build({ routes: routesWithoutChat, imageDescriberModel: 'claude' })).toThrow(/chat-completions/);
  });

  test('a legacy sunset without the legacy route, or malformed, is refused before a deploy', () => {
    const routesWithoutLegacy = [syntheticRoute({ id: 'other', path: '/other' })];
    expect(() => build({ routes: routesWithoutLegacy, legacyChatSunset: '2027-06-30' })).toThrow(/chat-legacy/);
    expect(() => build({ legacyChatSunset: 'next June' })).toThrow(/legacyChatSunset "next June"/);
  });
});

describe('optional context: an OpenAI-compatible moderation API instead of a Bedrock guardrail', () => {
  const MODERATION = 'https://api.openai.com/v1';
  let built: Built;
  beforeAll(() => {
    built = build({ moderationUrl: MODERATION });
  });

  test.each(routes.map((route) => [route.id, route]))(
    '%s: the URL and the key secret reach exactly the functions with guardrails:apply',
    (_id, route) => {
      const env =
        built.template.toJSON().Resources[functionLogicalId(built.stack, route.id)].Properties.Environment.Variables;
      const applies = route.grants.includes('guardrails:apply');
      expect(env[ENV.moderationUrl]).toBe(applies ? MODERATION : undefined);
      expect(env[ENV.moderationKeySecretId]).toEqual(
        applies ? { Ref: logicalIdOf(built.stack.secrets.moderationKey!) } : undefined,
      );
      expect(env[ENV.guardrailId]).toBeUndefined();
    },
  );

  test('the key secret starts without a value under the stack key, and is an output', () => {
    const id = logicalIdOf(built.stack.secrets.moderationKey!);
    const resource = built.template.toJSON().Resources[id];
    expect(resource.Type).toBe('AWS::SecretsManager::Secret');
    expect(resource.Properties.KmsKeyId).toEqual({
      'Fn::GetAtt': [logicalIdOf(built.stack.encryptionKey), 'Arn'],
    });
    expect(resource.Properties.SecretString).toBeUndefined();
    expect(resource.Properties.GenerateSecretString).toBeUndefined();
    built.template.hasOutput('ModerationKeySecretArn', { Value: { Ref: id } });
  });

  test('without it there is no such secret or output; with a guardrail as well the stack refuses', () => {
    const plain = build({});
    expect(plain.stack.secrets.moderationKey).toBeUndefined();
    expect(Object.keys(plain.template.toJSON().Outputs)).not.toContain('ModerationKeySecretArn');
    expect(() => build({ moderationUrl: MODERATION, guardrail: { id: 'abc123def456' } })).toThrow(
      /moderationUrl and guardrail/,
    );
  });
});

describe('the environment names are the ones the functions read', () => {
  /** As a function reads them: its configuration, from the environment the stack sets. */
  const moderatorFromEnv = (env: Record<string, string>, deps: ModeratorDeps) =>
    moderatorFor(readConfiguration(env).moderation, deps);

  test('prompt service URL and key secret', () => {
    const read = readConfiguration({
      [ENV.promptServiceUrl]: 'https://prompts.example/',
      [ENV.promptServiceKeySecretId]: 'arn:prompt-key',
    });
    expect(read.promptService).toEqual({
      url: 'https://prompts.example',
      key: undefined,
      keySecretId: 'arn:prompt-key',
    });
  });

  test('image describer', () => {
    expect(readConfiguration({ [ENV.imageDescriberModel]: 'claude' }).imageDescriberModel).toBe('claude');
  });

  test('the moderation URL and key secret reach the moderation API, the key read from the secret', async () => {
    const calls: { url: string; authorization: string | undefined }[] = [];
    const moderator = moderatorFromEnv(
      { [ENV.moderationUrl]: 'https://m.example/v1', [ENV.moderationKeySecretId]: 'arn:key' },
      {
        readSecret: async (id) => (id === 'arn:key' ? 'sk-from-secret' : ''),
        fetch: async (url, init) => {
          calls.push({ url, authorization: init.headers['authorization'] });
          return { ok: true, status: 200, json: async () => ({ results: [{ flagged: false, categories: {} }] }) };
        },
      },
    );
    await moderator.moderate(['hello'], new AbortController().signal);
    expect(calls).toEqual([{ url: 'https://m.example/v1/moderations', authorization: 'Bearer sk-from-secret' }]);
  });

  test('Bedrock guardrail id and version reach ApplyGuardrail', async () => {
    const inputs: Parameters<ApplyGuardrailSend>[0][] = [];
    const bedrockSend: ApplyGuardrailSend = async (input) => {
      inputs.push(input);
      return { action: 'NONE' };
    };
    const moderator = moderatorFromEnv(
      { [ENV.guardrailId]: 'abc123def456', [ENV.guardrailVersion]: '4' },
      { bedrockSend },
    );
    await moderator.moderate(['hello'], new AbortController().signal);
    expect(inputs).toEqual([expect.objectContaining({ guardrailIdentifier: 'abc123def456', guardrailVersion: '4' })]);
  });
});
