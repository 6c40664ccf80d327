/**
 * The environment contract between the deployment (CDK stack or local runtime) and the
 * functions. Names only live here so both sides agree.
 */
export const ENV = {
  identityTable: 'IDENTITY_TABLE',
  usageTable: 'USAGE_TABLE',
  cacheTable: 'CACHE_TABLE',
  jobsTable: 'JOBS_TABLE',
  /** Secrets Manager id (name or ARN) of the admin token secret (a plain string). */
  adminTokenSecretId: 'ADMIN_TOKEN_SECRET_ID',
  /** Secrets Manager id of the platform provider keys: JSON `{ "<provider>": "<key>" }`. */
  platformKeysSecretId: 'PLATFORM_KEYS_SECRET_ID',
  /** Name prefix of the per-key secrets holding callers' own provider keys, e.g. `gateway/provider-keys/`. */
  providerKeySecretPrefix: 'PROVIDER_KEY_SECRET_PREFIX',
  /** KMS key (id or ARN) those secrets are encrypted under. */
  providerKeysKmsKeyId: 'PROVIDER_KEYS_KMS_KEY_ID',
  userPoolId: 'USER_POOL_ID',
  userPoolClientId: 'USER_POOL_CLIENT_ID',
  /** Comma-separated origins allowed for CORS and for cookie-authenticated writes. */
  allowedOrigins: 'ALLOWED_ORIGINS',
  /** The release reported by /api/health. */
  gatewayVersion: 'GATEWAY_VERSION',
  /** Milliseconds writes made after the response wait to share a DynamoDB call (lambdas/store/write-behind.ts). */
  storeWriteBehindMs: 'STORE_WRITE_BEHIND_MS',
  /** Base URL of an upstream theme provider; unset, GET /api/v1/themes answers from the embedded catalog. */
  themesProviderUrl: 'THEMES_PROVIDER_URL',
  /** ARN of the job poller state machine that submit routes start (lambdas/jobs/start-job.ts). */
  jobStateMachineArn: 'JOB_STATE_MACHINE_ARN',
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];

/** Reads a required variable; a missing one is a deployment bug, reported by name. */
export function requireEnv(name: EnvName): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`environment variable ${name} is not set`);
  return value;
}

export function optionalEnv(name: EnvName): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}
