import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { configuration, required } from '../config/configuration.js';
import { ENV } from '../config/environment.js';
import { createDynamoDb, type DynamoDb } from './dynamodb-client.js';
import { createAssumeRole, type SessionCredentials } from './sts-client.js';
import { TenantCredentials } from './tenant-credentials.js';

/**
 * The clients of one account's tenant session (lambdas/store/tenant-credentials.ts): what the
 * tenant-facing reads use instead of the function role, which no longer holds them. The
 * tenant-access role's policy (lib/constructs/tenant-access-role.ts) lets these clients read
 * only the account's provider-key secrets (by their `gateway:account` tag) and the account's
 * partitions of the usage and jobs tables (`dynamodb:LeadingKeys`). Made once per instance;
 * the clients are kept with the credentials they sign with and go with them.
 */
export interface TenantClients {
  readonly dynamo: DynamoDb;
  secretsManager(): Promise<SecretsManagerClient>;
}

let credentials: TenantCredentials | undefined;
const clients = new WeakMap<SessionCredentials, TenantClients>();

function tenantCredentials(): TenantCredentials {
  if (credentials) return credentials;
  const config = configuration();
  const region = required(config.region, 'AWS_REGION');
  const role = required(config.credentials, 'AWS_ACCESS_KEY_ID');
  credentials = new TenantCredentials({
    roleArn: required(config.tenantAccessRoleArn, ENV.tenantAccessRoleArn),
    assumeRole: createAssumeRole({
      region,
      endpoint: config.endpoints.sts ?? `https://sts.${region}.amazonaws.com`,
      credentials: () => role,
    }),
  });
  return credentials;
}

/** The account's tenant-session clients: no STS call while its credentials are kept. */
export async function tenantClients(accountId: string): Promise<TenantClients> {
  const session = await tenantCredentials().get(accountId);
  let made = clients.get(session);
  if (!made) {
    made = clientsOf(session);
    clients.set(session, made);
  }
  return made;
}

function clientsOf(session: SessionCredentials): TenantClients {
  const { region, endpoints } = configuration();
  const inRegion = required(region, 'AWS_REGION');
  let secretsManager: Promise<SecretsManagerClient> | undefined;
  return {
    dynamo: createDynamoDb({
      region: inRegion,
      endpoint: endpoints.dynamodb ?? `https://dynamodb.${inRegion}.amazonaws.com`,
      credentials: () => session,
    }),
    // The SDK module loads at the first read of a secret, as lambdas/store/secrets-manager-client.ts does.
    secretsManager: () =>
      (secretsManager ??= import('@aws-sdk/client-secrets-manager').then(
        ({ SecretsManagerClient }) =>
          new SecretsManagerClient({
            maxAttempts: 3,
            credentials: {
              accessKeyId: session.accessKeyId,
              secretAccessKey: session.secretAccessKey,
              sessionToken: session.sessionToken,
              expiration: new Date(session.expiresAt),
            },
          }),
      )),
  };
}
