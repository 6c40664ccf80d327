import { ENV, type EnvName } from './environment.js';

/**
 * One function instance's configuration: everything the functions take from their environment,
 * read and checked once per cold start, then passed down. The deployment (the stack, or the
 * local runtime) decides it; nothing below the handlers reads `process.env` again.
 *
 * A function gets only the variables its grants need, so most settings are optional here and
 * demanded where they are used (`required`), naming the variable. What is set must be well
 * formed: every malformed value is reported at once, at the first call, in one error.
 *
 * Left to their owners: Powertools' own `POWERTOOLS_*` variables (the logger and metrics read
 * them when they load), the OpenTelemetry layer's `OTEL_*` (read by the layer, not by this code), and the AWS SDK's resolution of region, credentials and
 * endpoints for the SDK clients (Secrets Manager, Cognito, Step Functions, Bedrock).
 */
/** See ENV.budgetWebhookBackoffSeconds. */
export const DEFAULT_BUDGET_WEBHOOK_BACKOFF_SECONDS = 30;

export interface GatewayConfiguration {
  /** `AWS_REGION`, which Lambda sets. */
  readonly region: string | undefined;
  /** The function role's credentials, which Lambda puts in the environment. */
  readonly credentials: AwsCredentials | undefined;
  /** Where the `bedrock` provider's models are called: `BEDROCK_REGION`, else `AWS_REGION`. */
  readonly bedrockRegion: string | undefined;
  /** `AWS_ENDPOINT_URL_<SERVICE>`, else `AWS_ENDPOINT_URL`: set locally to reach the stand-ins. */
  readonly endpoints: {
    readonly dynamodb: string | undefined;
    readonly sqs: string | undefined;
    readonly sts: string | undefined;
  };
  readonly tables: {
    readonly identity: string | undefined;
    readonly usage: string | undefined;
    readonly cache: string | undefined;
    readonly jobs: string | undefined;
  };
  readonly adminTokenSecretId: string | undefined;
  readonly platformKeysSecretId: string | undefined;
  /** The console distribution's edge secret (lambdas/identity/viewer-address.ts); unset without one. */
  readonly edgeSecretId: string | undefined;
  readonly providerKeySecretPrefix: string | undefined;
  readonly providerKeysKmsKeyId: string | undefined;
  /** The role tenant-scoped reads assume (lambdas/store/tenant-sessions.ts). */
  readonly tenantAccessRoleArn: string | undefined;
  readonly webhookSecretPrefix: string | undefined;
  readonly webhookSecretsKmsKeyId: string | undefined;
  /** `host:port` origins a webhook URL may name despite the public-URL policy: the local runtime's test receivers only. */
  readonly localWebhookReceivers: readonly string[];
  readonly userPool: {
    readonly id: string | undefined;
    readonly clientId: string | undefined;
    /** Every dashboard user must have an authenticator (DASHBOARD_MFA=required). */
    readonly mfaRequired: boolean;
    /** The issuer of the `otpauth://` URIs of authenticator set-ups. */
    readonly totpIssuer: string;
  };
  /** Origins allowed for CORS and cookie-authenticated writes. */
  readonly allowedOrigins: readonly string[];
  /** The release `/api/health` reports; `dev` when the deployment names none. */
  readonly version: string;
  /** See lambdas/store/write-behind.ts. */
  readonly writeBehindMs: number;
  readonly themesProviderUrl: string | undefined;
  readonly jobStateMachineArn: string | undefined;
  readonly sessions: SessionSettings;
  readonly usageRetryQueueUrl: string | undefined;
  readonly budgetNoticeQueueUrl: string | undefined;
  /** Seconds of a failed budget webhook attempt's first backoff. */
  readonly budgetWebhookBackoffSeconds: number;
  readonly promptService: {
    readonly url: string | undefined;
    readonly key: string | undefined;
    readonly keySecretId: string | undefined;
  };
  readonly imageDescriberModel: string | undefined;
  readonly moderation: ModerationSettings;
  /** When POST /api/chat is to stop answering (epoch ms), for its `Sunset` header; undefined: none announced. */
  readonly legacyChatSunsetMs: number | undefined;
  /** The platform's own key and base URL for an upstream, by its variable stem (`OPENAI`, `EXA`...). */
  platformService(stem: string): { readonly apiKey: string | undefined; readonly baseUrl: string | undefined };
}

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string | undefined;
}

/** Which engine `content_moderation` uses; a half configuration is refused, never weakened to `local`. */
export type ModerationSettings =
  | { readonly engine: 'local' }
  | { readonly engine: 'bedrock'; readonly guardrailId: string; readonly guardrailVersion: string | undefined }
  | {
      readonly engine: 'moderation-api';
      readonly url: string;
      /** The key itself (a developer's own runtime), or the Secrets Manager secret that holds it. */
      readonly credential: { readonly key: string } | { readonly secretId: string };
    };

/** How arena sessions are hosted (lambdas/arena/session-host.ts). */
export interface SessionSettings {
  /** The runner that continues a session after its host; without one a session ends with its first host. */
  readonly runnerArn: string | undefined;
  /** A host hands the session on after this long at most. @default - as long as its function may run */
  readonly handOffSeconds: number | undefined;
  readonly leaseSeconds: number;
  readonly maxSeconds: number;
}

export const DEFAULT_SESSION_LEASE_SECONDS = 30;
export const DEFAULT_SESSION_MAX_SECONDS = 2 * 3600;

/** Every malformed setting, named, in one message. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
  constructor(readonly problems: readonly string[]) {
    super(`the function's configuration is invalid: ${problems.join('; ')}`);
  }
}

export const DEFAULT_WRITE_BEHIND_MS = 2;
export const MAX_WRITE_BEHIND_MS = 1_000;

type Environment = Readonly<Record<string, string | undefined>>;

/** Reads and checks a configuration from an environment; throws ConfigurationError naming every bad value. */
export function readConfiguration(env: Environment): GatewayConfiguration {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const url = (name: string): string | undefined => {
    const value = text(name);
    if (value !== undefined && !isHttpUrl(value)) problems.push(`${name} must be an http(s) URL, not ${quote(value)}`);
    return value?.replace(/\/+$/, '');
  };

  const accessKeyId = text('AWS_ACCESS_KEY_ID');
  const secretAccessKey = text('AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set together or not at all');
  const credentials =
    accessKeyId && secretAccessKey
      ? { accessKeyId, secretAccessKey, sessionToken: text('AWS_SESSION_TOKEN') }
      : undefined;

  const origins = (text(ENV.allowedOrigins) ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins)
    if (!isHttpUrl(origin))
      problems.push(`${ENV.allowedOrigins} holds ${quote(origin)}, which is not an http(s) origin`);

  const integer = (name: string, min: number, max: number): number | undefined => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    problems.push(`${name} must be an integer from ${min} to ${max}, not ${raw}`);
    return undefined;
  };
  const writeBehindMs = integer(ENV.storeWriteBehindMs, 0, MAX_WRITE_BEHIND_MS) ?? DEFAULT_WRITE_BEHIND_MS;

  const region = (name: string): string | undefined => {
    const value = text(name);
    if (value !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(value))
      problems.push(`${name} must be an AWS region such as us-east-1, not ${quote(value)}`);
    return value;
  };
  const generalEndpoint = url('AWS_ENDPOINT_URL');
  const configuration: GatewayConfiguration = {
    region: text('AWS_REGION'),
    credentials,
    bedrockRegion: region(ENV.bedrockRegion) ?? text('AWS_REGION'),
    endpoints: {
      dynamodb: url('AWS_ENDPOINT_URL_DYNAMODB') ?? generalEndpoint,
      sqs: url('AWS_ENDPOINT_URL_SQS') ?? generalEndpoint,
      sts: url('AWS_ENDPOINT_URL_STS') ?? generalEndpoint,
    },
    tables: {
      identity: text(ENV.identityTable),
      usage: text(ENV.usageTable),
      cache: text(ENV.cacheTable),
      jobs: text(ENV.jobsTable),
    },
    adminTokenSecretId: text(ENV.adminTokenSecretId),
    platformKeysSecretId: text(ENV.platformKeysSecretId),
    edgeSecretId: text(ENV.edgeSecretId),
    providerKeySecretPrefix: text(ENV.providerKeySecretPrefix),
    providerKeysKmsKeyId: text(ENV.providerKeysKmsKeyId),
    tenantAccessRoleArn: text(ENV.tenantAccessRoleArn),
    webhookSecretPrefix: text(ENV.webhookSecretPrefix),
    webhookSecretsKmsKeyId: text(ENV.webhookSecretsKmsKeyId),
    localWebhookReceivers: (text(ENV.localWebhookReceivers) ?? '')
      .split(',')
      .map((origin) => origin.trim().toLowerCase())
      .filter(Boolean),
    userPool: {
      id: text(ENV.userPoolId),
      clientId: text(ENV.userPoolClientId),
      mfaRequired: dashboardMfa(text(ENV.dashboardMfa), problems),
      totpIssuer: text(ENV.totpIssuer) ?? 'AI Gateway',
    },
    allowedOrigins: origins,
    version: text(ENV.gatewayVersion) ?? 'dev',
    writeBehindMs,
    themesProviderUrl: url(ENV.themesProviderUrl),
    jobStateMachineArn: text(ENV.jobStateMachineArn),
    sessions: {
      runnerArn: text(ENV.sessionStateMachineArn),
      handOffSeconds: integer(ENV.sessionHandOffSeconds, 1, 3600),
      leaseSeconds: integer(ENV.sessionLeaseSeconds, 1, 600) ?? DEFAULT_SESSION_LEASE_SECONDS,
      maxSeconds: integer(ENV.sessionMaxSeconds, 10, 86_400) ?? DEFAULT_SESSION_MAX_SECONDS,
    },
    usageRetryQueueUrl: url(ENV.usageRetryQueueUrl),
    budgetNoticeQueueUrl: url(ENV.budgetNoticeQueueUrl),
    budgetWebhookBackoffSeconds:
      integer(ENV.budgetWebhookBackoffSeconds, 0, 3600) ?? DEFAULT_BUDGET_WEBHOOK_BACKOFF_SECONDS,
    promptService: {
      url: url(ENV.promptServiceUrl),
      key: text(ENV.promptServiceKey),
      keySecretId: text(ENV.promptServiceKeySecretId),
    },
    imageDescriberModel: text(ENV.imageDescriberModel),
    moderation: moderationSettings(text, url, problems),
    legacyChatSunsetMs: instant(text(ENV.legacyChatSunset), ENV.legacyChatSunset, problems),
    platformService: platformServices(env),
  };
  if (problems.length > 0) throw new ConfigurationError(problems);
  return configuration;
}

/** DASHBOARD_MFA: `required` or `optional` (the default). */
function dashboardMfa(raw: string | undefined, problems: string[]): boolean {
  if (raw === undefined || raw === 'optional') return false;
  if (raw === 'required') return true;
  problems.push(`${ENV.dashboardMfa} must be required or optional, not ${JSON.stringify(raw)}`);
  return false;
}

function moderationSettings(
  text: (name: string) => string | undefined,
  url: (name: string) => string | undefined,
  problems: string[],
): ModerationSettings {
  const guardrailId = text(ENV.guardrailId);
  const moderationUrl = url(ENV.moderationUrl);
  const key = text(ENV.moderationKey);
  const keySecretId = text(ENV.moderationKeySecretId);
  // The stack refuses both at synthesis; should an environment name both, the guardrail wins.
  if (guardrailId !== undefined) {
    return { engine: 'bedrock', guardrailId, guardrailVersion: text(ENV.guardrailVersion) };
  }
  if (moderationUrl !== undefined && key !== undefined)
    return { engine: 'moderation-api', url: moderationUrl, credential: { key } };
  if (moderationUrl !== undefined && keySecretId !== undefined)
    return { engine: 'moderation-api', url: moderationUrl, credential: { secretId: keySecretId } };
  if (moderationUrl !== undefined || key !== undefined || keySecretId !== undefined)
    problems.push(`${ENV.moderationUrl} needs ${ENV.moderationKey} or ${ENV.moderationKeySecretId}, and they need it`);
  return { engine: 'local' };
}

/** An ISO 8601 date (its start, UTC) or date-time with its zone, as epoch milliseconds. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

function instant(value: string | undefined, name: string, problems: string[]): number | undefined {
  if (value === undefined) return undefined;
  const ms = isoInstantMs(value);
  if (ms === undefined) problems.push(`${name} must be an ISO 8601 date or date-time with a zone, not ${quote(value)}`);
  return ms;
}

/** The instant an ISO 8601 date or zoned date-time names, or undefined (the stack checks its context with it too). */
export function isoInstantMs(value: string): number | undefined {
  const ms = ISO_INSTANT.test(value) && isCalendarDay(value.slice(0, 10)) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** `YYYY-MM-DD` names a day of the calendar (Date.parse would take 2026-02-30 as 2 March). */
function isCalendarDay(day: string): boolean {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date)).toISOString().slice(0, 10) === day;
}

/** `<STEM>_API_KEY` and `<STEM>_BASE_URL`, read when asked: the stems belong to the catalog. */
function platformServices(env: Environment): GatewayConfiguration['platformService'] {
  const read = (name: string) => env[name]?.trim() || undefined;
  const services = new Map<string, { apiKey: string | undefined; baseUrl: string | undefined }>();
  return (stem) => {
    let service = services.get(stem);
    if (!service) {
      const baseUrl = read(`${stem}_BASE_URL`);
      if (baseUrl !== undefined && !isHttpUrl(baseUrl))
        throw new ConfigurationError([`${stem}_BASE_URL must be an http(s) URL, not ${quote(baseUrl)}`]);
      service = { apiKey: read(`${stem}_API_KEY`), baseUrl: baseUrl?.replace(/\/+$/, '') };
      services.set(stem, service);
    }
    return service;
  };
}

/** A setting a feature cannot work without: missing means the deployment is wrong, said by name. */
export function required<T>(value: T | undefined, variable: EnvName | `AWS_${string}`): T {
  if (value === undefined) throw new Error(`environment variable ${variable} is not set`);
  return value;
}

let current: GatewayConfiguration | undefined;

/**
 * This instance's configuration, read from `process.env` at the first call (the cold start's
 * first invocation) and kept: Lambda never changes a running instance's environment, and the
 * local runtime writes its whole environment before it serves a request.
 */
export function configuration(): GatewayConfiguration {
  current ??= readConfiguration(process.env);
  return current;
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

const quote = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
