import { ENV } from '../lambdas/config/environment.js';
import { tableSchemas, type TableName } from '../lambdas/store/table-schema.js';
import type { StandInCredentials } from './standins/signature-check.js';
import { LOCAL_SQS_ACCOUNT } from './standins/sqs.js';
import { LOCAL_ACCOUNT } from './standins/tenant-sessions.mjs';

/** Fixed ids of the stand-in resources; the cloud gets real ones from the stack. */
export const LOCAL_USER_POOL_ID = 'local_gatewaypool';
export const LOCAL_USER_POOL_CLIENT_ID = 'local-dashboard-client';
export const ADMIN_TOKEN_SECRET = 'gateway/admin-token';
export const PLATFORM_KEYS_SECRET = 'gateway/platform-provider-keys';
export const PROVIDER_KEY_SECRET_PREFIX = 'gateway/provider-keys/';
export const WEBHOOK_SECRET_PREFIX = 'gateway/webhook-secrets/';
export const LOCAL_REGION = 'us-east-1';
/** The tenant-access role the STS stand-in lets the handlers assume (local/standins/sts.ts). */
export const LOCAL_TENANT_ACCESS_ROLE_ARN = `arn:aws:iam::${LOCAL_ACCOUNT}:role/gateway-tenant-access`;
/** See lambdas/store/write-behind.ts; chosen with `npm run bench`. */
export const LOCAL_WRITE_BEHIND_MS = 20;
/** The usage retry queue in the SQS stand-in (local/queue-mappings.ts makes it at start). */
export const LOCAL_USAGE_RETRY_QUEUE = 'gateway-usage-retry';
/**
 * The deployed queue hides a received message for six times the redrive's 60 s timeout; here a
 * message the redrive could not write comes back sooner, as nothing runs long on loopback.
 */
export const LOCAL_USAGE_RETRY_VISIBILITY_SECONDS = 5;
/** The budget notice queue in the SQS stand-in (lib/constructs/budget-webhooks.ts in the cloud). */
export const LOCAL_BUDGET_NOTICE_QUEUE = 'gateway-budget-notices';
/** As the usage retry queue's: a consumer that stopped mid-batch is not waited for long. */
export const LOCAL_BUDGET_NOTICE_VISIBILITY_SECONDS = 5;

export interface Endpoints {
  readonly dynamodb: string;
  readonly secretsManager: string;
  readonly cognito: string;
  /** The embedded DynamoDB's Streams API (its own port, as AWS's own endpoint). */
  readonly dynamodbStreams?: string;
  readonly sqs?: string;
  /** The STS stand-in, whose tenant sessions the tenant-facing reads run under. */
  readonly sts?: string;
}

/**
 * The environment the handlers see locally: the same variables the stack sets in the cloud,
 * plus SDK endpoint overrides that point every AWS client at a stand-in on loopback. Real
 * credentials and profiles are replaced so nothing can reach an AWS account by accident; the
 * runtime's own (local/standin-credentials.ts) are the ones the stand-ins accept.
 */
export function handlerEnvironment(
  endpoints: Endpoints,
  tableNames: Readonly<Record<TableName, string>>,
  allowedOrigins: readonly string[],
  version: string,
  credentials: StandInCredentials,
): Record<string, string> {
  const env: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_SESSION_TOKEN: '',
    AWS_PROFILE: '',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.secretsManager,
    AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: endpoints.cognito,
    ...(endpoints.dynamodbStreams ? { AWS_ENDPOINT_URL_DYNAMODB_STREAMS: endpoints.dynamodbStreams } : {}),
    ...(endpoints.sqs
      ? {
          AWS_ENDPOINT_URL_SQS: endpoints.sqs,
          [ENV.usageRetryQueueUrl]: `${endpoints.sqs}/${LOCAL_SQS_ACCOUNT}/${LOCAL_USAGE_RETRY_QUEUE}`,
          [ENV.budgetNoticeQueueUrl]: `${endpoints.sqs}/${LOCAL_SQS_ACCOUNT}/${LOCAL_BUDGET_NOTICE_QUEUE}`,
        }
      : {}),
    ...(endpoints.sts
      ? { AWS_ENDPOINT_URL_STS: endpoints.sts, [ENV.tenantAccessRoleArn]: LOCAL_TENANT_ACCESS_ROLE_ARN }
      : {}),
    [ENV.adminTokenSecretId]: ADMIN_TOKEN_SECRET,
    [ENV.platformKeysSecretId]: PLATFORM_KEYS_SECRET,
    [ENV.providerKeySecretPrefix]: PROVIDER_KEY_SECRET_PREFIX,
    [ENV.webhookSecretPrefix]: WEBHOOK_SECRET_PREFIX,
    [ENV.userPoolId]: LOCAL_USER_POOL_ID,
    [ENV.userPoolClientId]: LOCAL_USER_POOL_CLIENT_ID,
    [ENV.allowedOrigins]: allowedOrigins.join(','),
    [ENV.gatewayVersion]: version,
    // One process serves every request here, unlike a Lambda instance: let after-response
    // writes gather for longer, so they share calls instead of interleaving with each request.
    [ENV.storeWriteBehindMs]: String(LOCAL_WRITE_BEHIND_MS),
  };
  for (const schema of tableSchemas) env[schema.envVar] = tableNames[schema.name];
  return env;
}
