import { ConfigurationError, readConfiguration, required } from '../../../lambdas/config/configuration.js';

/** The one reader of the functions' environment: what it takes, what it refuses, and how it says so. */

test('an empty environment is a valid configuration: every setting absent, the defaults in place', () => {
  const config = readConfiguration({});
  expect(config).toMatchObject({
    region: undefined,
    credentials: undefined,
    endpoints: { dynamodb: undefined, sqs: undefined },
    tables: { identity: undefined, usage: undefined, cache: undefined, jobs: undefined },
    allowedOrigins: [],
    version: 'dev',
    writeBehindMs: 2,
    moderation: { engine: 'local' },
    legacyChatSunsetMs: undefined,
  });
  expect(config.platformService('OPENAI')).toEqual({ apiKey: undefined, baseUrl: undefined });
});

test('what a deployed function is given, read into its settings', () => {
  const config = readConfiguration({
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_SESSION_TOKEN: 'token',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:4566/',
    AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000',
    IDENTITY_TABLE: 'gw-identity',
    USAGE_TABLE: 'gw-usage',
    ALLOWED_ORIGINS: ' https://app.example , http://localhost:8787,',
    GATEWAY_VERSION: '1.2.3',
    STORE_WRITE_BEHIND_MS: '20',
    THEMES_PROVIDER_URL: 'https://themes.example/v1/',
    USAGE_RETRY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/q',
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: 'http://127.0.0.1:9000/v1/',
  });
  expect(config).toMatchObject({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
    // The service's own override wins; the general one serves the rest.
    endpoints: { dynamodb: 'http://127.0.0.1:8000', sqs: 'http://127.0.0.1:4566' },
    tables: { identity: 'gw-identity', usage: 'gw-usage', cache: undefined },
    allowedOrigins: ['https://app.example', 'http://localhost:8787'],
    version: '1.2.3',
    writeBehindMs: 20,
    themesProviderUrl: 'https://themes.example/v1',
    usageRetryQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/q',
  });
  expect(config.platformService('OPENAI')).toEqual({ apiKey: 'sk-test', baseUrl: 'http://127.0.0.1:9000/v1' });
});

test('the legacy route’s sunset: an ISO 8601 date (its UTC start) or a date-time with its zone', () => {
  const sunset = (value: string) => readConfiguration({ LEGACY_CHAT_SUNSET: value }).legacyChatSunsetMs;
  expect(sunset('2027-06-30')).toBe(Date.UTC(2027, 5, 30));
  expect(sunset('2027-06-30T12:00:00+02:00')).toBe(Date.UTC(2027, 5, 30, 10));
  for (const bad of ['2027-02-30', '30 June 2027', '2027-06-30T12:00', 'soon'])
    expect(() => sunset(bad)).toThrow(
      `LEGACY_CHAT_SUNSET must be an ISO 8601 date or date-time with a zone, not "${bad}"`,
    );
});

test('dashboard MFA: optional unless DASHBOARD_MFA is required; the authenticator issuer, else a default', () => {
  const userPool = (env: Record<string, string>) => readConfiguration(env).userPool;
  expect(userPool({})).toMatchObject({ mfaRequired: false, totpIssuer: 'AI Gateway' });
  expect(userPool({ DASHBOARD_MFA: 'optional', TOTP_ISSUER: 'Prod' })).toMatchObject({
    mfaRequired: false,
    totpIssuer: 'Prod',
  });
  expect(userPool({ DASHBOARD_MFA: 'required' }).mfaRequired).toBe(true);
  expect(() => userPool({ DASHBOARD_MFA: 'on' })).toThrow('DASHBOARD_MFA must be required or optional, not "on"');
});

test('every malformed value is named at once, in one error', () => {
  const failure = (() => {
    try {
      readConfiguration({
        STORE_WRITE_BEHIND_MS: 'soon',
        THEMES_PROVIDER_URL: 'themes.example',
        ALLOWED_ORIGINS: 'https://ok.example,not an origin',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        GUARDRAILS_MODERATION_URL: 'https://moderation.example/v1',
      });
    } catch (error) {
      return error;
    }
    return undefined;
  })();
  expect(failure).toBeInstanceOf(ConfigurationError);
  expect((failure as ConfigurationError).problems).toEqual([
    'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set together or not at all',
    'ALLOWED_ORIGINS holds "not an origin", which is not an http(s) origin',
    'STORE_WRITE_BEHIND_MS must be an integer from 0 to 1000, not soon',
    'THEMES_PROVIDER_URL must be an http(s) URL, not "themes.example"',
    'GUARDRAILS_MODERATION_URL needs GUARDRAILS_MODERATION_KEY or GUARDRAILS_MODERATION_KEY_SECRET_ID, and they need it',
  ]);
  expect((failure as Error).message).toMatch(/^the function's configuration is invalid: AWS_ACCESS_KEY_ID/);
});

test('the moderation engine: a guardrail, the moderation API by key or by secret, else local rules', () => {
  expect(readConfiguration({ GUARDRAILS_BEDROCK_ID: 'gr-1', GUARDRAILS_BEDROCK_VERSION: '2' }).moderation).toEqual({
    engine: 'bedrock',
    guardrailId: 'gr-1',
    guardrailVersion: '2',
  });
  expect(
    readConfiguration({ GUARDRAILS_MODERATION_URL: 'https://m.example/v1', GUARDRAILS_MODERATION_KEY: 'k' }).moderation,
  ).toEqual({ engine: 'moderation-api', url: 'https://m.example/v1', credential: { key: 'k' } });
  expect(
    readConfiguration({
      GUARDRAILS_MODERATION_URL: 'https://m.example/v1',
      GUARDRAILS_MODERATION_KEY_SECRET_ID: 'arn:s',
    }).moderation,
  ).toEqual({ engine: 'moderation-api', url: 'https://m.example/v1', credential: { secretId: 'arn:s' } });
});

test("an upstream's base URL is checked when its stem is first asked for, naming the variable", () => {
  // Stems belong to the catalog, which the configuration does not know: an unrelated
  // `*_BASE_URL` in a developer's shell must not stop the runtime.
  const config = readConfiguration({ SOMETHING_BASE_URL: 'not a url', MINIMAX_BASE_URL: 'ftp://minimax' });
  expect(() => config.platformService('MINIMAX')).toThrow(
    'MINIMAX_BASE_URL must be an http(s) URL, not "ftp://minimax"',
  );
});

test('a setting a feature needs is demanded where it is used, by the variable that sets it', () => {
  const config = readConfiguration({});
  expect(() => required(config.jobStateMachineArn, 'JOB_STATE_MACHINE_ARN')).toThrow(
    'environment variable JOB_STATE_MACHINE_ARN is not set',
  );
  expect(
    required(readConfiguration({ JOB_STATE_MACHINE_ARN: 'arn:sm' }).jobStateMachineArn, 'JOB_STATE_MACHINE_ARN'),
  ).toBe('arn:sm');
});
