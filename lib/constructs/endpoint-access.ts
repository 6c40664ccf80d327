import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { ENV } from '../../lambdas/config/environment.js';
import type { TableName } from '../../lambdas/store/table-schema.js';
import type { Grant } from '../routes.js';
import type { DashboardUserPool } from './user-pool.js';
import type { GatewaySecrets } from './secrets.js';
import type { Tables } from './tables.js';
import { TENANT_SESSION_ACTIONS } from '../tenant-access-policy.js';

/** The ledger's shard partitions, the only items `usage:append` may insert (IAM `dynamodb:LeadingKeys`). */
export const LEDGER_SHARD_KEYS = 'ACCOUNT#*#L*';

/** The stored Responses' partitions (lambdas/store/stored-responses.ts). */
const STORED_RESPONSE_KEYS = 'ACCOUNT#*#RESPONSE#*';

/** A Bedrock guardrail the chat function applies for `content_moderation`. */
export interface BedrockGuardrailConfig {
  /** The guardrail id (e.g. `abc123def456`) or its full ARN. */
  readonly id: string;
  /** A numbered version, or `DRAFT`. @default - none: the function uses DRAFT */
  readonly version?: string;
}

export interface EndpointResources {
  readonly encryptionKey: IKey;
  readonly tables: Tables;
  readonly secrets: GatewaySecrets;
  readonly dashboard: DashboardUserPool;
  /**
   * Name prefix of the per-key secrets that hold callers' own provider keys, e.g.
   * `AiGateway/provider-keys/`; the functions create them at runtime as `<prefix><accountId>/<id>`.
   */
  readonly providerKeySecretPrefix: string;
  /**
   * Name prefix of the per-account webhook signing secrets, e.g. `AiGateway/webhook-secrets/`;
   * the functions create them at runtime as `<prefix><accountId>`.
   */
  readonly webhookSecretPrefix: string;
  /** Base URL of the prompt-template service. @default - none: PROMPT_SERVICE_URL is not set */
  readonly promptServiceUrl?: string;
  /** Base URL of the upstream theme provider. @default - none: the embedded theme catalog answers */
  readonly themesProviderUrl?: string;
  /** @default - none: `guardrails:apply` grants nothing for Bedrock */
  readonly guardrail?: BedrockGuardrailConfig;
  /**
   * An OpenAI-compatible moderation API for `guardrails:apply`, with its key in
   * `secrets.moderationKey`. @default - none: `guardrails:apply` grants nothing for it
   */
  readonly moderationUrl?: string;
  /** The job poller state machine, for `jobs:start`. @default - none: a route with `jobs:start` is refused */
  readonly jobPollerArn?: string;
  /** The arena session runner state machine, for `arenaSessions:run`. @default - none: a route with `arenaSessions:run` is refused */
  readonly sessionRunnerArn?: string;
  /** The usage retry queue (lib/constructs/usage-pipeline.ts), for `usage:append`. @default - none: a route with `usage:append` is refused */
  readonly usageRetryQueue?: IQueue;
  /**
   * The budget notice queue (lib/constructs/budget-webhooks.ts), for `budgets:reserve`: who settles
   * a budget tells its crossings. @default - none: a route with `budgets:reserve` is refused
   */
  readonly budgetNoticeQueue?: IQueue;
  /**
   * The tenant-access role (lib/constructs/tenant-access-role.ts), for the grants read under a
   * tenant session. @default - none: a route with such a grant is refused
   */
  readonly tenantAccessRoleArn?: string;
}

/** A cdk-nag finding that the role holding these statements must acknowledge, with why. */
export interface NagAcknowledgement {
  readonly id: string;
  readonly reason: string;
}

/** What one function may do, and the environment that tells it where those resources are. */
export interface EndpointAccess {
  readonly statements: PolicyStatement[];
  readonly environment: Record<string, string>;
  /** Findings on the role's own policy that these statements raise by design (see providerKeys). */
  readonly acknowledgements: NagAcknowledgement[];
  /**
   * Whether the function opens tenant sessions: its role must then be trusted by the
   * tenant-access role (`TenantAccessRole.trust`).
   */
  readonly tenantSessions: boolean;
}

type TableAccess = 'read' | 'write' | 'readWrite';

const TABLE_ACTIONS: Record<TableAccess, readonly string[]> = {
  read: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  readWrite: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
};

/**
 * Every grant the manifest can name. A Record (not a switch) so that adding a grant to the
 * manifest's type without deciding its permissions fails to compile.
 */
const GRANTS: Record<Grant, (acc: Accumulator) => void> = {
  'identity:read': (acc) => acc.table('identity', TABLE_ACTIONS.read, true),
  'identity:write': (acc) => acc.table('identity', TABLE_ACTIONS.write, false),
  // Sign-in and sign-out write nothing but their session (lambdas/store/sessions.ts): a defect
  // there cannot touch a key or an account record.
  'sessions:write': (acc) => acc.keyedTable('identity', ['dynamodb:PutItem', 'dynamodb:DeleteItem'], ['SESSION#*']),
  // An operator's reads of any account (the admin usage route): the whole table.
  'usage:read': (acc) => acc.table('usage', TABLE_ACTIONS.read, true),
  // The caller's own usage, read under its tenant session: the role itself reads no usage at all.
  'usage:readOwn': (acc) => acc.tenantTableRead('usage'),
  // The caller's own ledger entries (the request log), read under its tenant session: the role
  // is told the table's name and holds no action on it.
  'requestLog:readOwn': (acc) => acc.tenantTableRead('usage'),
  // The sharded ledger (lambdas/store/usage-ledger-puts.ts): PutItem and nothing else, only on
  // ledger shard partitions (`dynamodb:LeadingKeys`), so such a function cannot touch a total, a
  // checkpoint or the unsharded ledger, nor update or delete any item. IAM cannot demand the
  // puts' attribute_not_exists condition; the code sends it, and the stream shows any overwrite
  // as a MODIFY. Puts DynamoDB refuses go to the retry queue: SendMessage on that queue only.
  'usage:append': (acc) => acc.ledgerAppend(),
  // Requests' content for keys that opted in (lambdas/store/request-contents.ts): PutItem on
  // `ACCOUNT#<id>#REQUEST#<request>` items of the jobs table only, never a job or a session log.
  'requestContent:write': (acc) => acc.keyedTable('jobs', ['dynamodb:PutItem'], ['ACCOUNT#*#REQUEST#*']),
  // The caller's own, read under its tenant session: the role itself reads none.
  'requestContent:readOwn': (acc) => acc.tenantTableRead('jobs'),
  // Cached answers are read and written in calls shared with concurrent requests
  // (BatchGetItem / BatchWriteItem: lambdas/store/batch-reads.ts, batch-writes.ts).
  // The cache table by purpose, each on its own items (`dynamodb:LeadingKeys`), so a read-only
  // route that counts its rate limit cannot write or delete a cached answer or a sign-in counter.
  // Rate limits: windows opened and counted by UpdateItem, leases' shards read back in batches.
  'rateLimits:count': (acc) =>
    acc.keyedTable('cache', ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'], ['RATE#*']),
  // Answers share BatchGetItem and BatchWriteItem calls with concurrent requests' (store/batch-*.ts).
  'answers:cache': (acc) =>
    acc.keyedTable(
      'cache',
      ['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
      ['RESPONSE#*', 'IMAGEDESC#*'],
    ),
  'idempotency:write': (acc) =>
    acc.keyedTable(
      'cache',
      ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      ['IDEMPOTENCY#*'],
    ),
  // Sign-in's counters (UpdateItem) and pending authenticator set-ups (PutItem).
  'signIns:write': (acc) =>
    acc.keyedTable(
      'cache',
      ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      ['LOGIN#*', 'MFASETUP#*'],
    ),
  // The arena's session log (lambdas/store/session-log.ts: pages put only where none is, the
  // META's lease updated under conditions) and the session records (ballots for audits).
  'arenaSessions:write': (acc) => acc.table('jobs', ['dynamodb:PutItem', 'dynamodb:UpdateItem'], false),
  // The session runner reads a session's log back (its plan, META and pages) for no caller: only
  // the logs' partitions (`ACCOUNT#<id>#ARENA_SESSION#<session>`), not job records nor the
  // accounts' records.
  'arenaSessions:read': (acc) =>
    acc.keyedTable('jobs', ['dynamodb:GetItem', 'dynamodb:Query'], ['ACCOUNT#*#ARENA_SESSION#*']),
  // The caller's session logs, records and leaderboards (`ACCOUNT#<id>` and `ACCOUNT#<id>#*`),
  // read under its tenant session: the role itself reads none of them.
  'arenaSessions:readOwn': (acc) => acc.tenantTableRead('jobs'),
  // Stored Responses (lambdas/store/stored-responses.ts): conditional puts of new items, and
  // deletes, each only on `ACCOUNT#*#RESPONSE#*` partitions; reads go through the tenant session.
  'responses:write': (acc) => acc.keyedTable('jobs', ['dynamodb:PutItem'], [STORED_RESPONSE_KEYS]),
  'responses:readOwn': (acc) => acc.tenantTableRead('jobs'),
  'responses:delete': (acc) => acc.keyedTable('jobs', ['dynamodb:DeleteItem'], [STORED_RESPONSE_KEYS]),
  // The chat modes start a session's runner (execution name = session id); nothing else on it.
  'arenaSessions:run': (acc) => acc.sessionRunner(),
  // Budget counters (lambdas/store/budget-counters.ts, `BUDGET#<scope>` items of the identity
  // table): a reservation and its settlement are each one UpdateItem; an account's budget on
  // shards (budget-shards.ts) also reads its shards to borrow between them (a transaction of
  // UpdateItems, which IAM checks action by action) and to find its thresholds' crossings.
  // Nothing else, no other item. Whoever settles a budget tells the thresholds its settlement
  // crosses: SendMessage on the budget notice queue, for the account's budget webhook.
  'budgets:reserve': (acc) => {
    acc.keyedTable('identity', ['dynamodb:UpdateItem', 'dynamodb:BatchGetItem', 'dynamodb:GetItem'], ['BUDGET#*']);
    acc.budgetNotices();
  },
  'budgets:read': (acc) => acc.keyedTable('identity', ['dynamodb:BatchGetItem', 'dynamodb:GetItem'], ['BUDGET#*']),
  // Job records (lambdas/jobs/job-repository.ts, `ACCOUNT#<id>#JOB#<job>`) read by the job
  // poller's tasks, which act for no caller: GetItem on job items only, not session logs nor the
  // accounts' records.
  'jobs:read': (acc) => acc.keyedTable('jobs', ['dynamodb:GetItem'], ['ACCOUNT#*#JOB#*']),
  // A caller's own jobs (status, subscribe), read under its tenant session.
  'jobs:readOwn': (acc) => acc.tenantTableRead('jobs'),
  // Conditional creates and transitions only, on job items only; jobs are never deleted here
  // (TTL expires them).
  'jobs:write': (acc) => acc.keyedTable('jobs', ['dynamodb:PutItem', 'dynamodb:UpdateItem'], ['ACCOUNT#*#JOB#*']),
  // Submit routes start the poller (execution name = job id); nothing else on the machine.
  'jobs:start': (acc) => acc.jobPoller(),
  'adminToken:read': (acc) => acc.secret(ENV.adminTokenSecretId, 'adminToken'),
  // Only with the console's distribution, the one sender of the edge secret.
  'edgeSecret:read': (acc) => acc.edgeSecret(),
  'platformKeys:read': (acc) => acc.secret(ENV.platformKeysSecretId, 'platformKeys'),
  // The key secret always (it exists whether or not a service is configured); the URL when configured.
  'promptService:read': (acc) => acc.promptService(),
  // Only a URL, and only when configured: the provider is public and keyless.
  'themesProvider:read': (acc) => acc.themesProvider(),
  // Nothing at all without a configured engine (a Bedrock guardrail, or a moderation API and its
  // key secret): the function then moderates with its local rules.
  'guardrails:apply': (acc) => acc.guardrail(),
  // Bedrock's models, called with the role (no key): model access itself is enabled per account
  // in Bedrock's console; IAM only lets the role ask.
  'bedrock:invoke': (acc) => acc.bedrockModels(),
  // Callers' own keys, one secret per key created at runtime, read under the caller's tenant
  // session only (the secret's account tag must be the session's): the role itself reads none.
  'providerKeys:read': (acc) => acc.tenantSession(),
  // Creating and deleting are separate grants, so neither route can do the other's work. Tags sent
  // with CreateSecret need TagResource as well.
  'providerKeys:create': (acc) =>
    acc.providerKeys(
      ['secretsmanager:CreateSecret', 'secretsmanager:TagResource'],
      ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
    ),
  // A forced delete never touches the secret's value, so no key use.
  'providerKeys:delete': (acc) => acc.providerKeys(['secretsmanager:DeleteSecret'], []),
  // Each account's webhook signing secrets, one secret per account made at runtime, under the
  // stack's key as provider keys are. Read, create and rotate are separate grants: the Notify
  // task reads and creates (an account's first event may come before its first read), only the
  // rotate route replaces.
  'webhookSecrets:read': (acc) => acc.webhookSecrets(['secretsmanager:GetSecretValue'], ['kms:Decrypt']),
  'webhookSecrets:create': (acc) =>
    acc.webhookSecrets(
      ['secretsmanager:CreateSecret', 'secretsmanager:TagResource'],
      ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
    ),
  'webhookSecrets:rotate': (acc) =>
    acc.webhookSecrets(['secretsmanager:PutSecretValue'], ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey']),
  // The admin flow only: a public client id alone signs no one in (lib/constructs/user-pool.ts).
  // The authenticator calls (AssociateSoftwareToken, VerifySoftwareToken, SetUserMFAPreference)
  // and ChangePassword are the user's own, authorized by their access token, not by IAM.
  'userPool:login': (acc) => {
    acc.userPool(['cognito-idp:AdminInitiateAuth', 'cognito-idp:AdminRespondToAuthChallenge']);
    acc.dashboardSignIn();
  },
  'userPool:admin': (acc) => acc.userPool(['cognito-idp:AdminCreateUser']),
};

/**
 * Turns a route's grants into least-privilege statements and env vars. No wildcard resources,
 * except the name prefix of the provider-key secrets (their names are only known at runtime).
 */
export function endpointAccess(grants: readonly Grant[], resources: EndpointResources): EndpointAccess {
  const acc = new Accumulator(resources);
  for (const grant of new Set(grants)) GRANTS[grant](acc);
  return acc.build();
}

class Accumulator {
  private readonly tableActions = new Map<TableName, Set<string>>();
  private readonly indexQueries = new Set<TableName>();
  private readonly secretArns = new Set<string>();
  private readonly cognitoActions = new Set<string>();
  private readonly providerKeyActions = new Set<string>();
  private readonly webhookSecretActions = new Set<string>();
  /** KMS actions Secrets Manager performs with the stack key on the function's behalf. */
  private readonly secretKeyActions = new Set<string>();
  private readonly guardrailArns = new Set<string>();
  private bedrockInvoke = false;
  private readonly stateMachineArns = new Set<string>();
  private tableWrites = false;
  private readonly keyedStatements: PolicyStatement[] = [];
  private ledgerAppends = false;
  private noticeSends = false;
  private tenantSessions = false;
  private readonly environment: Record<string, string> = {};

  constructor(private readonly resources: EndpointResources) {}

  table(name: TableName, actions: readonly string[], queriesIndexes: boolean): void {
    const { schema, table } = this.resources.tables.get(name);
    const set = this.tableActions.get(name) ?? new Set<string>();
    actions.forEach((action) => set.add(action));
    this.tableActions.set(name, set);
    if (queriesIndexes && schema.indexes.length > 0) this.indexQueries.add(name);
    if (actions.some((action) => !TABLE_ACTIONS.read.includes(action))) this.tableWrites = true;
    this.environment[schema.envVar] = table.tableName;
  }

  /** Actions on a table limited to items whose partition key matches one of `leadingKeys`. */
  keyedTable(name: TableName, actions: readonly string[], leadingKeys: readonly string[]): void {
    const { schema, table } = this.resources.tables.get(name);
    this.keyedStatements.push(
      new PolicyStatement({
        actions: [...actions].sort(),
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...leadingKeys] } },
      }),
    );
    if (actions.some((action) => !TABLE_ACTIONS.read.includes(action))) this.tableWrites = true;
    this.environment[schema.envVar] = table.tableName;
  }

  secret(
    envVar: string,
    which: 'adminToken' | 'edgeSecret' | 'platformKeys' | 'promptServiceKey' | 'moderationKey',
  ): void {
    const secret = this.resources.secrets[which];
    if (secret === undefined) throw new Error(`the ${which} secret was not created`);
    this.secretArns.add(secret.secretArn);
    this.secretKeyActions.add('kms:Decrypt');
    this.environment[envVar] = secret.secretArn;
  }

  edgeSecret(): void {
    if (this.resources.secrets.edgeSecret) this.secret(ENV.edgeSecretId, 'edgeSecret');
  }

  promptService(): void {
    this.secret(ENV.promptServiceKeySecretId, 'promptServiceKey');
    const url = this.resources.promptServiceUrl;
    if (url !== undefined) this.environment[ENV.promptServiceUrl] = url;
  }

  themesProvider(): void {
    const url = this.resources.themesProviderUrl;
    if (url !== undefined) this.environment[ENV.themesProviderUrl] = url;
  }

  guardrail(): void {
    const moderationUrl = this.resources.moderationUrl;
    if (moderationUrl !== undefined) {
      this.environment[ENV.moderationUrl] = moderationUrl;
      this.secret(ENV.moderationKeySecretId, 'moderationKey');
    }
    const guardrail = this.resources.guardrail;
    if (guardrail === undefined) return;
    // An ARN is used as given (it may name another account's guardrail); an id is this account's, in this region.
    this.guardrailArns.add(
      guardrail.id.startsWith('arn:')
        ? guardrail.id
        : Stack.of(this.resources.tables).formatArn({
            service: 'bedrock',
            resource: 'guardrail',
            resourceName: guardrail.id,
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          }),
    );
    this.environment[ENV.guardrailId] = guardrail.id;
    if (guardrail.version !== undefined) this.environment[ENV.guardrailVersion] = guardrail.version;
  }

  bedrockModels(): void {
    this.bedrockInvoke = true;
  }

  jobPoller(): void {
    const arn = this.resources.jobPollerArn;
    if (arn === undefined) throw new Error('jobs:start needs the job poller state machine (jobPollerArn)');
    this.stateMachineArns.add(arn);
    this.environment[ENV.jobStateMachineArn] = arn;
  }

  sessionRunner(): void {
    const arn = this.resources.sessionRunnerArn;
    if (arn === undefined)
      throw new Error('arenaSessions:run needs the session runner state machine (sessionRunnerArn)');
    this.stateMachineArns.add(arn);
    this.environment[ENV.sessionStateMachineArn] = arn;
  }

  /** Opening tenant sessions: AssumeRole with its session tag, on the tenant-access role only. */
  tenantSession(): void {
    const arn = this.resources.tenantAccessRoleArn;
    if (arn === undefined) throw new Error('a tenant-session grant needs the tenant-access role (tenantAccessRoleArn)');
    this.tenantSessions = true;
    this.environment[ENV.tenantAccessRoleArn] = arn;
  }

  /** A tenant session's reads of a table (lib/tenant-access-policy.ts): its name, no action of the role's own. */
  tenantTableRead(name: TableName): void {
    this.tenantSession();
    const { schema, table } = this.resources.tables.get(name);
    this.environment[schema.envVar] = table.tableName;
  }

  ledgerAppend(): void {
    const queue = this.resources.usageRetryQueue;
    if (queue === undefined) throw new Error('usage:append needs the usage retry queue (usageRetryQueue)');
    const { schema, table } = this.resources.tables.get('usage');
    this.ledgerAppends = true;
    this.tableWrites = true;
    this.environment[schema.envVar] = table.tableName;
    this.environment[ENV.usageRetryQueueUrl] = queue.queueUrl;
  }

  budgetNotices(): void {
    const queue = this.resources.budgetNoticeQueue;
    if (queue === undefined) throw new Error('budgets:reserve needs the budget notice queue (budgetNoticeQueue)');
    this.noticeSends = true;
    this.environment[ENV.budgetNoticeQueueUrl] = queue.queueUrl;
  }

  providerKeys(actions: readonly string[], keyActions: readonly string[]): void {
    actions.forEach((action) => this.providerKeyActions.add(action));
    keyActions.forEach((action) => this.secretKeyActions.add(action));
    this.environment[ENV.providerKeySecretPrefix] = this.resources.providerKeySecretPrefix;
    this.environment[ENV.providerKeysKmsKeyId] = this.resources.encryptionKey.keyArn;
  }

  webhookSecrets(actions: readonly string[], keyActions: readonly string[]): void {
    actions.forEach((action) => this.webhookSecretActions.add(action));
    keyActions.forEach((action) => this.secretKeyActions.add(action));
    this.environment[ENV.webhookSecretPrefix] = this.resources.webhookSecretPrefix;
    this.environment[ENV.webhookSecretsKmsKeyId] = this.resources.encryptionKey.keyArn;
  }

  userPool(actions: readonly string[]): void {
    actions.forEach((action) => this.cognitoActions.add(action));
    const { userPool, client } = this.resources.dashboard;
    this.environment[ENV.userPoolId] = userPool.userPoolId;
    this.environment[ENV.userPoolClientId] = client.userPoolClientId;
  }

  /** What a sign-in function needs to know about MFA: whether it is required, and the authenticator issuer. */
  dashboardSignIn(): void {
    const { mfaRequired } = this.resources.dashboard;
    this.environment[ENV.dashboardMfa] = mfaRequired ? 'required' : 'optional';
    this.environment[ENV.totpIssuer] = Stack.of(this.resources.tables).stackName;
  }

  build(): EndpointAccess {
    const statements: PolicyStatement[] = [];
    const keyArn = this.resources.encryptionKey.keyArn;
    const stack = Stack.of(this.resources.tables);
    const region = stack.region;

    for (const [name, actions] of this.tableActions) {
      const { table } = this.resources.tables.get(name);
      statements.push(new PolicyStatement({ actions: [...actions].sort(), resources: [table.tableArn] }));
      if (this.indexQueries.has(name)) {
        const indexArns = this.resources.tables
          .get(name)
          .schema.indexes.map((index) => `${table.tableArn}/index/${index.name}`);
        statements.push(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexArns }));
      }
    }
    statements.push(...this.keyedStatements);
    if (this.ledgerAppends) {
      const queue = this.resources.usageRetryQueue!;
      statements.push(
        // PartiQL INSERT only: it creates an item or fails on a taken key, so no grant here can
        // change or remove an entry (lambdas/store/partiql-insert.ts).
        new PolicyStatement({
          actions: ['dynamodb:PartiQLInsert'],
          resources: [this.resources.tables.get('usage').table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [LEDGER_SHARD_KEYS] } },
        }),
        new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
      );
    }
    if (this.noticeSends)
      statements.push(
        new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.resources.budgetNoticeQueue!.queueArn] }),
      );
    if (this.ledgerAppends || this.noticeSends)
      statements.push(
        new PolicyStatement({
          actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
          resources: [keyArn],
          conditions: { StringEquals: { 'kms:ViaService': `sqs.${region}.amazonaws.com` } },
        }),
      );
    if (this.tableActions.size > 0 || this.keyedStatements.length > 0 || this.ledgerAppends) {
      // DynamoDB uses the table key on the caller's behalf; the condition keeps the key usable only that way.
      const keyActions = this.tableWrites
        ? ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']
        : ['kms:Decrypt', 'kms:DescribeKey'];
      statements.push(
        new PolicyStatement({
          actions: keyActions,
          resources: [keyArn],
          conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${region}.amazonaws.com` } },
        }),
      );
    }
    if (this.secretArns.size > 0) {
      statements.push(
        new PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: [...this.secretArns],
        }),
      );
    }
    const acknowledgements: NagAcknowledgement[] = [];
    if (this.providerKeyActions.size > 0) {
      const actions = [...this.providerKeyActions].sort();
      const prefixArn = this.prefixArn(stack, this.resources.providerKeySecretPrefix);
      statements.push(new PolicyStatement({ actions, resources: [prefixArn] }));
      acknowledgements.push({
        id: `AwsSolutions-IAM5[Resource::${nagResourceName(stack, prefixArn)}]`,
        reason:
          `${actions.join(', ')} on callers' own provider-key secrets: each stored key is its own secret, ` +
          `created at runtime as ${this.resources.providerKeySecretPrefix}<accountId>/<keyId> (plus the random ` +
          'suffix Secrets Manager appends), so no ARN exists at deploy time. The wildcard is only a name-prefix ' +
          "match: it reaches this stack's provider-key secrets and no other secret in the account.",
      });
    }
    if (this.webhookSecretActions.size > 0) {
      const actions = [...this.webhookSecretActions].sort();
      const prefixArn = this.prefixArn(stack, this.resources.webhookSecretPrefix);
      statements.push(new PolicyStatement({ actions, resources: [prefixArn] }));
      acknowledgements.push({
        id: `AwsSolutions-IAM5[Resource::${nagResourceName(stack, prefixArn)}]`,
        reason:
          `${actions.join(', ')} on accounts' webhook signing secrets: one secret per account, created at ` +
          `runtime as ${this.resources.webhookSecretPrefix}<accountId> (plus the random suffix Secrets Manager ` +
          'appends), so no ARN exists at deploy time. The wildcard is only a name-prefix match: it reaches ' +
          "this stack's webhook secrets and no other secret in the account.",
      });
    }
    if (this.secretKeyActions.size > 0) {
      statements.push(
        new PolicyStatement({
          actions: [...this.secretKeyActions].sort(),
          resources: [keyArn],
          conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${region}.amazonaws.com` } },
        }),
      );
    }
    if (this.cognitoActions.size > 0) {
      statements.push(
        new PolicyStatement({
          actions: [...this.cognitoActions].sort(),
          resources: [this.resources.dashboard.userPool.userPoolArn],
        }),
      );
    }
    if (this.guardrailArns.size > 0) {
      statements.push(new PolicyStatement({ actions: ['bedrock:ApplyGuardrail'], resources: [...this.guardrailArns] }));
    }
    if (this.bedrockInvoke) {
      // Foundation models in any region: a cross-region inference profile (`us.`, `global.`)
      // sends the call to a model in another region, and IAM checks the model there too.
      const models = `arn:${stack.partition}:bedrock:*::foundation-model/*`;
      const profiles = stack.formatArn({
        service: 'bedrock',
        resource: 'inference-profile',
        resourceName: '*',
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      });
      statements.push(
        new PolicyStatement({
          actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
          resources: [models, profiles],
        }),
      );
      for (const arn of [models, profiles])
        acknowledgements.push({
          id: `AwsSolutions-IAM5[Resource::${nagResourceName(stack, arn)}]`,
          reason:
            'InvokeModel and InvokeModelWithResponseStream only, on Bedrock model resources: the model a call names is ' +
            "the caller's choice among the catalog's Bedrock routes, and a cross-region inference profile runs it in " +
            'whichever region has capacity, so neither the model nor the region is known at deploy time. Foundation ' +
            "models are AWS's, not the account's data; inference profiles are this account's, in this region only.",
        });
    }
    if (this.stateMachineArns.size > 0) {
      statements.push(
        new PolicyStatement({ actions: ['states:StartExecution'], resources: [...this.stateMachineArns] }),
      );
    }
    if (this.tenantSessions) {
      statements.push(
        new PolicyStatement({
          actions: [...TENANT_SESSION_ACTIONS],
          resources: [this.resources.tenantAccessRoleArn!],
        }),
      );
    }
    return {
      statements,
      environment: { ...this.environment },
      acknowledgements,
      tenantSessions: this.tenantSessions,
    };
  }

  /** `arn:<partition>:secretsmanager:<region>:<account>:secret:<prefix>*` */
  private prefixArn(stack: Stack, prefix: string): string {
    return stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${prefix}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }
}

/**
 * How cdk-nag names a resource in a finding id: the resolved value with `Ref`s written as
 * `<Name>` (e.g. `arn:<AWS::Partition>:...`), so the acknowledgement names exactly this ARN.
 */
export function nagResourceName(stack: Stack, value: string): string {
  const visit = (node: unknown): string => {
    if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
    if (node && typeof node === 'object') {
      const object = node as Record<string, unknown>;
      if ('Ref' in object) return `<${visit(object['Ref'])}>`;
      if ('Fn::Join' in object) {
        const [delimiter, items] = object['Fn::Join'] as [string, unknown[]];
        return items.map(visit).join(delimiter);
      }
    }
    throw new Error(`cannot name ${JSON.stringify(node)} as cdk-nag does`);
  };
  return visit(stack.resolve(value));
}
