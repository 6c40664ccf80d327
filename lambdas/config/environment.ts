/**
 * The environment contract between the deployment (CDK stack or local runtime) and the
 * functions. Names only live here so both sides agree; lambdas/config/configuration.ts is the
 * one reader. Each function gets only the variables its grants need (lib/constructs/endpoint-access.ts).
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
  /**
   * Secrets Manager id of the edge secret the console's distribution sends on `/api/*` requests,
   * proving the viewer address it sends with them (lambdas/identity/viewer-address.ts). Unset
   * without the console's distribution.
   */
  edgeSecretId: 'EDGE_SECRET_ID',
  /** Name prefix of the per-key secrets holding callers' own provider keys, e.g. `gateway/provider-keys/`. */
  providerKeySecretPrefix: 'PROVIDER_KEY_SECRET_PREFIX',
  /** KMS key (id or ARN) those secrets are encrypted under. */
  providerKeysKmsKeyId: 'PROVIDER_KEYS_KMS_KEY_ID',
  /**
   * The tenant-access role (lib/constructs/tenant-access-role.ts) a function assumes, with the
   * caller's account as a session tag, to read that account's provider keys, usage and session
   * records: IAM, not only the code, then keeps it to that account (lambdas/store/tenant-sessions.ts).
   */
  tenantAccessRoleArn: 'TENANT_ACCESS_ROLE_ARN',
  /** Name prefix of the per-account webhook signing secrets (lambdas/store/webhook-secrets.ts), e.g. `gateway/webhook-secrets/`. */
  webhookSecretPrefix: 'WEBHOOK_SECRET_PREFIX',
  /** KMS key (id or ARN) those secrets are encrypted under. */
  webhookSecretsKmsKeyId: 'WEBHOOK_SECRETS_KMS_KEY_ID',
  /**
   * Local runtime only, never set by the stack: comma-separated `host:port` origins a job's
   * `webhook_url` may name although the public-URL policy refuses them (a test's receiver on
   * loopback). lambdas/jobs/webhook-url.ts; test/infra proves no function of the stack has it.
   */
  localWebhookReceivers: 'GATEWAY_LOCAL_WEBHOOK_RECEIVERS',
  userPoolId: 'USER_POOL_ID',
  userPoolClientId: 'USER_POOL_CLIENT_ID',
  /** `required`: every dashboard user must have an authenticator (the pool's MFA is on); unset or `optional`: each user's choice. */
  dashboardMfa: 'DASHBOARD_MFA',
  /** The issuer authenticator apps show beside a dashboard user's email (the stack's name). */
  totpIssuer: 'TOTP_ISSUER',
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
  /** ARN of the arena session runner state machine, which continues sessions their first host could not finish (lambdas/arena/session-continuation.ts). */
  sessionStateMachineArn: 'SESSION_STATE_MACHINE_ARN',
  /** Seconds an arena session's host plays before it hands the session on (unset: as long as its function may run). */
  sessionHandOffSeconds: 'GATEWAY_SESSION_HANDOFF_SECONDS',
  /** Seconds of an arena session host's lease: how soon another host may take over from one that stopped. */
  sessionLeaseSeconds: 'GATEWAY_SESSION_LEASE_SECONDS',
  /** Seconds an arena session may run in all, across hosts. */
  sessionMaxSeconds: 'GATEWAY_SESSION_MAX_SECONDS',
  /** The SQS queue usage entries go to when the ledger cannot take them (lambdas/usage/usage-retry-queue.ts). */
  usageRetryQueueUrl: 'USAGE_RETRY_QUEUE_URL',
  /** The SQS queue budget threshold crossings go to for the account's budget webhook (lambdas/usage/budget-notices.ts). */
  budgetNoticeQueueUrl: 'BUDGET_NOTICE_QUEUE_URL',
  /**
   * Seconds a failed budget webhook attempt waits before the next, doubled per attempt
   * (lambdas/jobs/budget-webhook-step.ts); the local runtime's tests set 0. @default 30
   */
  budgetWebhookBackoffSeconds: 'BUDGET_WEBHOOK_BACKOFF_SECONDS',
  /** Base URL of the prompt-template service (lambdas/chat/prompts/prompt-service-client.ts). */
  promptServiceUrl: 'PROMPT_SERVICE_URL',
  /** Its key in plain text (a developer's own runtime)... */
  promptServiceKey: 'PROMPT_SERVICE_KEY',
  /** ...or the Secrets Manager secret that holds it (a plain string), as deployed. */
  promptServiceKeySecretId: 'PROMPT_SERVICE_KEY_SECRET_ID',
  /** The model alias that describes images for models without vision (lambdas/chat/image-descriptions.ts). */
  imageDescriberModel: 'IMAGE_DESCRIBER_MODEL',
  /**
   * The region whose Bedrock Runtime serves the `bedrock` provider's models; unset, the
   * function's own (`AWS_REGION`). `BEDROCK_BASE_URL` (the catalog's stem) replaces the endpoint
   * itself: the local runtime's simulator.
   */
  bedrockRegion: 'BEDROCK_REGION',
  /** A Bedrock guardrail for `content_moderation`: its id (or ARN)... */
  guardrailId: 'GUARDRAILS_BEDROCK_ID',
  /** ...and version (the draft when unset). */
  guardrailVersion: 'GUARDRAILS_BEDROCK_VERSION',
  /** An OpenAI-compatible moderation API: its `/moderations` URL, or its base (`https://api.openai.com/v1`)... */
  moderationUrl: 'GUARDRAILS_MODERATION_URL',
  /** ...its key in plain text (a developer's own runtime)... */
  moderationKey: 'GUARDRAILS_MODERATION_KEY',
  /** ...or the Secrets Manager secret that holds it (a plain string), as deployed. */
  moderationKeySecretId: 'GUARDRAILS_MODERATION_KEY_SECRET_ID',
  /**
   * When the deprecated POST /api/chat is to stop answering (ISO 8601 date or date-time), sent as
   * its `Sunset` header; unset, no date is announced (docs/interface.md §9.5).
   */
  legacyChatSunset: 'LEGACY_CHAT_SUNSET',
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];
