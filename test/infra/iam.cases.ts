import type { CfnElement } from 'aws-cdk-lib';
import { tableSchemas, type TableName } from '../../lambdas/store/table-schema.js';
import type { GatewayStackProps } from '../../lib/gateway-stack.js';
import type { Grant, RouteSpec } from '../../lib/routes.js';
import {
  actionsOf,
  build,
  flatten,
  manifestRoutes,
  syntheticRoute,
  logicalIdOf,
  refersTo,
  resourcesOf,
  roleLogicalId,
  roleStatements,
  statementsOn,
  PARTITION,
  BEDROCK_INVOKE_ACTIONS,
  BEDROCK_MODELS_ARN,
  BEDROCK_PROFILES_ARN,
  PROVIDER_KEY_SECRETS_ARN,
  WEBHOOK_SECRETS_ARN,
  REGION,
  type Built,
  type Statement,
} from './support.js';

// The permissions each grant should give, written out independently of lib/constructs.
const READ = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'];
const TABLE_ACTIONS: Partial<Record<Grant, [TableName, string[]]>> = {
  'identity:read': ['identity', READ],
  'identity:write': ['identity', ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']],
  // Sign-in and sign-out: their session items only (`dynamodb:LeadingKeys`, checked below).
  'sessions:write': ['identity', ['dynamodb:DeleteItem', 'dynamodb:PutItem']],
  'usage:read': ['usage', READ],
  // The sharded ledger: PartiQL INSERT alone (it never replaces an item), on ledger shard partitions (checked below).
  'usage:append': ['usage', ['dynamodb:PartiQLInsert']],
  // The cache table by purpose, each on its own partitions (`dynamodb:LeadingKeys`, checked below).
  'rateLimits:count': ['cache', ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']],
  // BatchGetItem and BatchWriteItem: cached answers share batches with concurrent requests'.
  'answers:cache': [
    'cache',
    ['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
  ],
  'idempotency:write': [
    'cache',
    ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  ],
  'signIns:write': ['cache', ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']],
  // The session log: conditional puts of pages and records, the META's lease updates.
  'arenaSessions:write': ['jobs', ['dynamodb:PutItem', 'dynamodb:UpdateItem']],
  // The session runner's: session logs only (`ACCOUNT#*#ARENA_SESSION#*`, tenant-access.cases.ts).
  // A caller's own logs and records are read under its tenant session (arenaSessions:readOwn),
  // which gives the role no table action.
  'arenaSessions:read': ['jobs', ['dynamodb:GetItem', 'dynamodb:Query']],
  // The job poller's: job records only (`ACCOUNT#*#JOB#*`); a caller's own under its tenant
  // session (jobs:readOwn). Conditional creates and transitions, never deletes.
  'jobs:read': ['jobs', ['dynamodb:GetItem']],
  // Budget counters only (`BUDGET#*`, checked below): reserving on an account's shards reads them.
  'budgets:reserve': ['identity', ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']],
  'budgets:read': ['identity', ['dynamodb:BatchGetItem', 'dynamodb:GetItem']],
  'jobs:write': ['jobs', ['dynamodb:PutItem', 'dynamodb:UpdateItem']],
  // Requests' content for keys that opted in: puts on `ACCOUNT#*#REQUEST#*` items alone.
  'requestContent:write': ['jobs', ['dynamodb:PutItem']],
  // Stored Responses: new items put, items deleted, only on `ACCOUNT#*#RESPONSE#*` (checked below);
  // a caller's own are read under its tenant session (responses:readOwn).
  'responses:write': ['jobs', ['dynamodb:PutItem']],
  'responses:delete': ['jobs', ['dynamodb:DeleteItem']],
};
/** The cache table's partitions by purpose, as the items' keys are written in lambdas/store. */
const CACHE_PURPOSES: readonly [Grant, string[]][] = [
  ['rateLimits:count', ['RATE#*']],
  ['answers:cache', ['RESPONSE#*', 'IMAGEDESC#*']],
  ['idempotency:write', ['IDEMPOTENCY#*']],
  ['signIns:write', ['LOGIN#*', 'MFASETUP#*']],
];
const byKeys = (a: { leadingKeys?: string[] }, b: { leadingKeys?: string[] }) =>
  String(a.leadingKeys).localeCompare(String(b.leadingKeys));
const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
// Step Functions' logging (CloudWatch vended-log delivery) and tracing: no resource-level permissions exist.
const STATE_MACHINE_UNSCOPED = [
  ...XRAY,
  'xray:GetSamplingRules',
  'xray:GetSamplingTargets',
  'logs:CreateLogDelivery',
  'logs:DeleteLogDelivery',
  'logs:DescribeLogGroups',
  'logs:DescribeResourcePolicies',
  'logs:GetLogDelivery',
  'logs:ListLogDeliveries',
  'logs:PutResourcePolicy',
  'logs:UpdateLogDelivery',
];

/** The logical id of the job poller state machine role's default policy. */
function jobPollerPolicyId(built: Built): string {
  const policy = built.stack.jobPoller.stateMachine.role.node.findChild('DefaultPolicy').node.defaultChild;
  return built.stack.getLogicalId(policy as CfnElement);
}
const TABLE_WRITES: readonly Grant[] = [
  'identity:write',
  'sessions:write',
  'usage:append',
  'rateLimits:count',
  'answers:cache',
  'idempotency:write',
  'signIns:write',
  'arenaSessions:write',
  'jobs:write',
  'budgets:reserve',
  'requestContent:write',
  'responses:write',
  'responses:delete',
];
// Callers' own provider keys: one secret per key under the name prefix, created at runtime.
// Reading one is the tenant-access role's alone (providerKeys:read opens a tenant session).
const PROVIDER_KEY_ACTIONS: Partial<Record<Grant, string[]>> = {
  'providerKeys:create': ['secretsmanager:CreateSecret', 'secretsmanager:TagResource'],
  'providerKeys:delete': ['secretsmanager:DeleteSecret'],
};
// Accounts' webhook signing secrets: one secret per account under its own name prefix.
const WEBHOOK_SECRET_ACTIONS: Partial<Record<Grant, string[]>> = {
  'webhookSecrets:read': ['secretsmanager:GetSecretValue'],
  'webhookSecrets:create': ['secretsmanager:CreateSecret', 'secretsmanager:TagResource'],
  'webhookSecrets:rotate': ['secretsmanager:PutSecretValue'],
};
const SECRET_READS: readonly Grant[] = [
  'webhookSecrets:read',
  'webhookSecrets:create',
  'webhookSecrets:rotate',
  'adminToken:read',
  'platformKeys:read',
  'promptService:read',
  'providerKeys:create',
];
// Grants read under a tenant session: AssumeRole and TagSession on the tenant-access role, nothing more.
const TENANT_GRANTS: readonly Grant[] = [
  'providerKeys:read',
  'usage:readOwn',
  'requestLog:readOwn',
  'requestContent:readOwn',
  'arenaSessions:readOwn',
  'jobs:readOwn',
  'responses:readOwn',
];
/** The tenant role's one statement on the provider-key prefix: read, only where the tag is the session's. */
const TENANT_SECRET_CONDITION = {
  StringEquals: { 'secretsmanager:ResourceTag/gateway:account': '${aws:PrincipalTag/account}' },
};
// A Bedrock guardrail, as an id (this account and region) or as a full ARN used as given.
const GUARDRAIL_ID = 'abc123def456';
const GUARDRAIL_ARN = 'arn:aws:bedrock:us-east-1:111122223333:guardrail/xyz789';
const CONFIGURED: Partial<GatewayStackProps> = {
  guardrail: { id: GUARDRAIL_ID, version: '2' },
  promptServiceUrl: 'https://prompts.example.com',
};
// The other engine: an OpenAI-compatible moderation API, its key in a secret of the stack's.
const MODERATION_API: Partial<GatewayStackProps> = { moderationUrl: 'https://api.openai.com/v1' };

/** Whether the route reads the moderation API's key secret. */
const readsModerationKey = (route: RouteSpec, props: Partial<GatewayStackProps>): boolean =>
  route.grants.includes('guardrails:apply') && props.moderationUrl !== undefined;
/** Whether the route reads the console distribution's edge secret: only where there is one. */
const readsEdgeSecret = (route: RouteSpec, props: Partial<GatewayStackProps>): boolean =>
  route.grants.includes('edgeSecret:read') && props.console !== undefined;
const readsOptionalSecret = (route: RouteSpec, props: Partial<GatewayStackProps>): boolean =>
  readsModerationKey(route, props) || readsEdgeSecret(route, props);

/** The ARN ApplyGuardrail should be allowed on, flattened; none without a configured guardrail. */
function expectedGuardrailArns(route: RouteSpec, props: Partial<GatewayStackProps>): string[] {
  if (!route.grants.includes('guardrails:apply') || !props.guardrail) return [];
  const { id } = props.guardrail;
  return [id.startsWith('arn:') ? id : `arn:${PARTITION}:bedrock:${REGION}:<AWS::AccountId>:guardrail/${id}`];
}

/** The services whose actions a role may hold at all, from its grants (logs and X-Ray always). */
function expectedServices(route: RouteSpec, props: Partial<GatewayStackProps>): string[] {
  const has = (grants: readonly Grant[]) => route.grants.some((grant) => grants.includes(grant));
  const services = ['logs', 'xray'];
  if (route.grants.some((grant) => TABLE_ACTIONS[grant])) services.push('dynamodb', 'kms');
  if (has(SECRET_READS) || readsOptionalSecret(route, props)) services.push('secretsmanager', 'kms');
  if (has(['providerKeys:delete'])) services.push('secretsmanager');
  if (has(['userPool:login', 'userPool:admin'])) services.push('cognito-idp');
  if (has(['jobs:start', 'arenaSessions:run'])) services.push('states');
  // budgets:reserve tells crossings: SendMessage on the budget notice queue.
  if (has(['usage:append', 'budgets:reserve'])) services.push('sqs');
  if (has(TENANT_GRANTS)) services.push('sts');
  if (expectedGuardrailArns(route, props).length > 0 || has(['bedrock:invoke'])) services.push('bedrock');
  return [...new Set(services)].sort();
}

// A Record so that a grant added to the manifest's type without a test here fails to compile.
const EVERY_GRANT: Record<Grant, true> = {
  'identity:read': true,
  'identity:write': true,
  'sessions:write': true,
  'usage:read': true,
  'usage:readOwn': true,
  'requestLog:readOwn': true,
  'requestContent:write': true,
  'requestContent:readOwn': true,
  'usage:append': true,
  'rateLimits:count': true,
  'answers:cache': true,
  'idempotency:write': true,
  'signIns:write': true,
  'arenaSessions:write': true,
  'arenaSessions:read': true,
  'arenaSessions:readOwn': true,
  'arenaSessions:run': true,
  'jobs:read': true,
  'jobs:readOwn': true,
  'budgets:reserve': true,
  'budgets:read': true,
  'jobs:write': true,
  'jobs:start': true,
  'adminToken:read': true,
  'edgeSecret:read': true,
  'platformKeys:read': true,
  'providerKeys:read': true,
  'providerKeys:create': true,
  'providerKeys:delete': true,
  'promptService:read': true,
  'bedrock:invoke': true,
  'themesProvider:read': true,
  'guardrails:apply': true,
  'userPool:login': true,
  'userPool:admin': true,
  'webhookSecrets:read': true,
  'webhookSecrets:create': true,
  'webhookSecrets:rotate': true,
  'responses:write': true,
  'responses:readOwn': true,
  'responses:delete': true,
};
// One synthetic route per grant, so grants the manifest does not use yet are covered too.
const singleGrantRoutes: RouteSpec[] = (Object.keys(EVERY_GRANT) as Grant[]).map((grant) =>
  syntheticRoute({ id: `only-${grant.replace(':', '-')}`, path: `/test/${grant.replace(':', '/')}`, grants: [grant] }),
);

function expectedTableActions(route: RouteSpec, table: TableName): string[] {
  const actions = route.grants.flatMap((grant) => {
    const entry = TABLE_ACTIONS[grant];
    return entry && entry[0] === table ? entry[1] : [];
  });
  return [...new Set(actions)].sort();
}

function expectedProviderKeyActions(route: RouteSpec): string[] {
  return [...new Set(route.grants.flatMap((grant) => PROVIDER_KEY_ACTIONS[grant] ?? []))].sort();
}

/** What the stack key may be used for through one service, e.g. `dynamodb`. */
function expectedKeyActions(
  route: RouteSpec,
  service: 'dynamodb' | 'secretsmanager' | 'sqs',
  props: Partial<GatewayStackProps>,
): string[] {
  const has = (grants: readonly Grant[]) => route.grants.some((grant) => grants.includes(grant));
  // Sending to the KMS-encrypted retry queue, or the budget notice queue.
  if (service === 'sqs') return has(['usage:append', 'budgets:reserve']) ? ['kms:Decrypt', 'kms:GenerateDataKey'] : [];
  if (service === 'dynamodb') {
    if (!route.grants.some((grant) => TABLE_ACTIONS[grant])) return [];
    return has(TABLE_WRITES)
      ? ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']
      : ['kms:Decrypt', 'kms:DescribeKey'];
  }
  if (has(['providerKeys:create', 'webhookSecrets:create', 'webhookSecrets:rotate']))
    return ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'];
  return has(SECRET_READS) || readsOptionalSecret(route, props) ? ['kms:Decrypt'] : [];
}

const onProviderKeySecrets = (statement: Statement) =>
  resourcesOf(statement).some((resource) => flatten(resource) === PROVIDER_KEY_SECRETS_ARN);

/** Actions allowed on the provider-key secrets' name prefix. */
function providerKeyActionsOf(statements: Statement[]): string[] {
  return [...new Set(statements.filter(onProviderKeySecrets).flatMap(actionsOf))].sort();
}

const onWebhookSecrets = (statement: Statement) =>
  resourcesOf(statement).some((resource) => flatten(resource) === WEBHOOK_SECRETS_ARN);

/** Actions allowed on the webhook secrets' name prefix. */
function webhookSecretActionsOf(statements: Statement[]): string[] {
  return [...new Set(statements.filter(onWebhookSecrets).flatMap(actionsOf))].sort();
}

function expectedWebhookSecretActions(route: RouteSpec): string[] {
  return [...new Set(route.grants.flatMap((grant) => WEBHOOK_SECRET_ACTIONS[grant] ?? []))].sort();
}

/**
 * Statements with a wildcard action or a wildcard ARN, other than the provider-key secrets' prefix
 * used for provider-key actions only. (Resource "*" is checked separately.)
 */
function unexpectedWildcards(statements: Statement[]): Statement[] {
  const allowedOn = new Map([
    [PROVIDER_KEY_SECRETS_ARN, new Set(Object.values(PROVIDER_KEY_ACTIONS).flat())],
    [WEBHOOK_SECRETS_ARN, new Set(Object.values(WEBHOOK_SECRET_ACTIONS).flat())],
    // Bedrock's models: which one a call names, and which region a profile runs it in, are the caller's and Bedrock's.
    [BEDROCK_MODELS_ARN, new Set(BEDROCK_INVOKE_ACTIONS)],
    [BEDROCK_PROFILES_ARN, new Set(BEDROCK_INVOKE_ACTIONS)],
  ]);
  return statements.filter((statement) => {
    if (actionsOf(statement).some((action) => action.includes('*'))) return true;
    const patterns = resourcesOf(statement)
      .filter((r) => r !== '*' && flatten(r).includes('*'))
      .map(flatten);
    return patterns.some((pattern) => {
      // The tenant role's read: GetSecretValue alone, and only under the account-tag condition.
      if (
        pattern === PROVIDER_KEY_SECRETS_ARN &&
        JSON.stringify(statement.Condition) === JSON.stringify(TENANT_SECRET_CONDITION)
      )
        return actionsOf(statement).some((action) => action !== 'secretsmanager:GetSecretValue');
      const allowed = allowedOn.get(pattern);
      return !allowed || actionsOf(statement).some((action) => !allowed.has(action));
    });
  });
}

/** Actions allowed on exactly the table ARN (not its indexes). */
function actionsOnTable(statements: Statement[], tableId: string): string[] {
  const exact = JSON.stringify({ 'Fn::GetAtt': [tableId, 'Arn'] });
  const onTable = statements.filter((s) => resourcesOf(s).some((r) => JSON.stringify(r) === exact));
  return [...new Set(onTable.flatMap(actionsOf))].sort();
}

/**
 * Every statement in the stack except the usage export role's: its wildcards (the export's
 * objects, the export ARN, log delivery) are reviewed in usage-exports.test.ts.
 */
function allIamStatements(built: Built): Statement[] {
  const resources = built.template.toJSON().Resources as Record<string, { Type: string; Properties: any }>;
  const exportRole = logicalIdOf(built.stack.usageExports.stateMachine.role);
  return Object.values(resources).flatMap((resource) => {
    if (resource.Type === 'AWS::IAM::Policy') {
      const roles = (resource.Properties.Roles ?? []) as { Ref?: string }[];
      return roles.some((role) => role.Ref === exportRole) ? [] : resource.Properties.PolicyDocument.Statement;
    }
    if (resource.Type === 'AWS::IAM::Role') {
      return (resource.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
    }
    return [];
  });
}

describe.each<[string, readonly RouteSpec[], Partial<GatewayStackProps>]>([
  ['the manifest', manifestRoutes, {}],
  ['one route per grant', singleGrantRoutes, {}],
  ['one route per grant, guardrail and prompt service configured', singleGrantRoutes, CONFIGURED],
  ['the manifest, guardrail given as an ARN', manifestRoutes, { guardrail: { id: GUARDRAIL_ARN } }],
  ['one route per grant, moderation API configured', singleGrantRoutes, MODERATION_API],
])('least privilege per function: %s', (_name, routes, props) => {
  let built: Built;
  beforeAll(() => {
    built = build({ routes, ...props });
  });

  const tableId = (name: TableName) => logicalIdOf(built.stack.tables.get(name).table);

  test.each(routes.map((route) => [route.id, route]))(
    '%s: table actions are exactly what its grants name',
    (_id, route) => {
      const statements = roleStatements(built.template, roleLogicalId(built.stack, route.id));
      for (const schema of tableSchemas) {
        expect([schema.name, actionsOnTable(statements, tableId(schema.name))]).toEqual([
          schema.name,
          expectedTableActions(route, schema.name),
        ]);
        const onIndexes = statementsOn(statements, tableId(schema.name)).filter((s) =>
          JSON.stringify(s.Resource).includes('/index/'),
        );
        // Every reading grant queries the table's indexes too, but the session log's: its items are found by key.
        const readsIndexes =
          schema.indexes.length > 0 &&
          route.grants.some(
            (grant) =>
              grant !== 'arenaSessions:read' &&
              TABLE_ACTIONS[grant]?.[0] === schema.name &&
              TABLE_ACTIONS[grant][1].includes('dynamodb:Query'),
          );
        expect([schema.name, onIndexes.flatMap(actionsOf)]).toEqual([
          schema.name,
          readsIndexes ? ['dynamodb:Query'] : [],
        ]);
        for (const statement of onIndexes) {
          expect(JSON.stringify(statement.Resource)).not.toContain('*');
        }
      }
    },
  );

  test('a function without identity:write cannot write the identity table, except sessions and budget counters', () => {
    const readers = routes.filter((r) => !r.grants.includes('identity:write'));
    const budgetCounters = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['BUDGET#*'] } };
    for (const route of readers) {
      const statements = roleStatements(built.template, roleLogicalId(built.stack, route.id));
      const allWrites = statementsOn(statements, tableId('identity')).filter((s) =>
        actionsOf(s).some((a) => /Put|Update|Delete|Write/.test(a)),
      );
      // Budget counters: UpdateItem alone, on `BUDGET#` partitions alone, and only with the grant.
      const counterWrites = allWrites.filter((s) => JSON.stringify(s.Condition) === JSON.stringify(budgetCounters));
      expect(counterWrites.map((s) => actionsOf(s).filter((a) => /Put|Update|Delete|Write/.test(a)))).toEqual(
        route.grants.includes('budgets:reserve') ? [['dynamodb:UpdateItem']] : [],
      );
      const writes = allWrites.filter((s) => !counterWrites.includes(s));
      if (!route.grants.includes('sessions:write')) {
        expect(writes).toEqual([]);
        continue;
      }
      // Only put and delete, and only on `SESSION#` partitions: never a key or an account.
      expect(writes).toHaveLength(1);
      expect(actionsOf(writes[0]!).sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:PutItem']);
      expect(writes[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['SESSION#*'] } });
    }
  });

  test.each(routes.map((route) => [route.id, route]))(
    '%s: stored Responses are put and deleted only on their own partitions',
    (_id, route) => {
      const storedResponses = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*#RESPONSE#*'] } };
      const statements = statementsOn(
        roleStatements(built.template, roleLogicalId(built.stack, route.id)),
        tableId('jobs'),
      ).filter((statement) => JSON.stringify(statement.Condition) === JSON.stringify(storedResponses));
      const expected = [
        ...(route.grants.includes('responses:write') ? ['dynamodb:PutItem'] : []),
        ...(route.grants.includes('responses:delete') ? ['dynamodb:DeleteItem'] : []),
      ].sort();
      expect(statements.flatMap(actionsOf).sort()).toEqual(expected);
    },
  );

  test.each(routes.map((route) => [route.id, route]))(
    '%s: on the cache table, each purpose only on its own partitions',
    (_id, route) => {
      const statements = statementsOn(
        roleStatements(built.template, roleLogicalId(built.stack, route.id)),
        tableId('cache'),
      );
      const expected = CACHE_PURPOSES.filter(([grant]) => route.grants.includes(grant)).map(([grant, leadingKeys]) => ({
        actions: TABLE_ACTIONS[grant]![1],
        leadingKeys,
      }));
      const found = statements.map((statement) => ({
        actions: actionsOf(statement).sort(),
        leadingKeys: (statement.Condition as { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } })?.[
          'ForAllValues:StringLike'
        ]?.['dynamodb:LeadingKeys'],
      }));
      // Each statement names one purpose's partitions; none reaches the table unconditioned.
      expect(found.sort(byKeys)).toEqual(expected.sort(byKeys));
    },
  );

  test.each(routes.map((route) => [route.id, route]))(
    '%s: secrets, user pool and key access follow its grants',
    (_id, route) => {
      const statements = roleStatements(built.template, roleLogicalId(built.stack, route.id));
      const has = (grant: Grant) => route.grants.includes(grant);

      // The stack's own secrets: read only, by ARN (possibly in one statement with the provider-key
      // prefix, when cdk.json's minimizePolicies merges statements with the same action).
      const ownSecret = (r: unknown) => flatten(r) !== PROVIDER_KEY_SECRETS_ARN && flatten(r) !== WEBHOOK_SECRETS_ARN;
      const secretReads = statements
        .filter((s) => actionsOf(s).some((a) => a.startsWith('secretsmanager:')))
        .filter((s) => resourcesOf(s).some(ownSecret));
      const secretIds = secretReads.flatMap(resourcesOf).filter(ownSecret);
      expect(secretReads.flatMap(actionsOf).every((a) => a === 'secretsmanager:GetSecretValue')).toBe(true);
      expect(secretIds.filter((r) => flatten(r).includes('*'))).toEqual([]);

      // Callers' provider keys: exactly the granted actions, on the name prefix and nothing else.
      expect(providerKeyActionsOf(statements)).toEqual(expectedProviderKeyActions(route));
      // Accounts' webhook secrets: the same, on their own prefix.
      expect(webhookSecretActionsOf(statements)).toEqual(expectedWebhookSecretActions(route));
      for (const statement of statements.filter(onWebhookSecrets)) {
        const others = resourcesOf(statement).filter((r) => flatten(r) !== WEBHOOK_SECRETS_ARN);
        expect(others.filter((r) => flatten(r).includes('*'))).toEqual([]);
      }
      for (const statement of statements.filter(onProviderKeySecrets)) {
        // cdk.json's minimizePolicies may merge the stack's own secrets (exact ARNs, same action) in.
        const others = resourcesOf(statement).filter((r) => flatten(r) !== PROVIDER_KEY_SECRETS_ARN);
        expect(others.filter((r) => flatten(r).includes('*'))).toEqual([]);
        expect(statement.Condition).toBeUndefined();
      }
      expect(secretIds.some((r) => refersTo(r, logicalIdOf(built.stack.secrets.adminToken)))).toBe(
        has('adminToken:read'),
      );
      expect(secretIds.some((r) => refersTo(r, logicalIdOf(built.stack.secrets.platformKeys)))).toBe(
        has('platformKeys:read'),
      );
      expect(secretIds.some((r) => refersTo(r, logicalIdOf(built.stack.secrets.promptServiceKey)))).toBe(
        has('promptService:read'),
      );
      const edgeSecret = built.stack.secrets.edgeSecret;
      expect(edgeSecret === undefined).toBe(props.console === undefined);
      expect(!!edgeSecret && secretIds.some((r) => refersTo(r, logicalIdOf(edgeSecret)))).toBe(
        readsEdgeSecret(route, props),
      );
      const moderationKey = built.stack.secrets.moderationKey;
      expect(moderationKey === undefined).toBe(props.moderationUrl === undefined);
      expect(!!moderationKey && secretIds.some((r) => refersTo(r, logicalIdOf(moderationKey)))).toBe(
        readsModerationKey(route, props),
      );

      // Bedrock: ApplyGuardrail on exactly the configured guardrail, and only with guardrails:apply.
      const bedrock = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('bedrock:')));
      const guardrailArns = expectedGuardrailArns(route, props);
      // And the models: InvokeModel (and its stream) on foundation models and this region's
      // inference profiles, and only with bedrock:invoke.
      expect(
        bedrock.map((s) => ({ actions: actionsOf(s), resources: resourcesOf(s).map(flatten), condition: s.Condition })),
      ).toEqual([
        ...(guardrailArns.length > 0
          ? [{ actions: ['bedrock:ApplyGuardrail'], resources: guardrailArns, condition: undefined }]
          : []),
        ...(has('bedrock:invoke')
          ? [
              {
                actions: BEDROCK_INVOKE_ACTIONS,
                resources: [BEDROCK_MODELS_ARN, BEDROCK_PROFILES_ARN],
                condition: undefined,
              },
            ]
          : []),
      ]);

      const cognito = [...new Set(statements.flatMap(actionsOf).filter((a) => a.startsWith('cognito-idp:')))].sort();
      expect(cognito).toEqual(
        [
          // Accounts get a temporary password with the user: no grant may set one (AdminSetUserPassword).
          ...(has('userPool:admin') ? ['cognito-idp:AdminCreateUser'] : []),
          // Sign-in by the admin flow only, IAM-signed; the user's own calls (ChangePassword, the
          // authenticator's) are authorized by the user's access token, so no grant holds them.
          ...(has('userPool:login')
            ? ['cognito-idp:AdminInitiateAuth', 'cognito-idp:AdminRespondToAuthChallenge']
            : []),
        ].sort(),
      );
      for (const statement of statements.filter((s) => actionsOf(s).some((a) => a.startsWith('cognito-idp:')))) {
        expect(resourcesOf(statement)).toEqual([
          { 'Fn::GetAtt': [logicalIdOf(built.stack.dashboard.userPool), 'Arn'] },
        ]);
      }

      // The key is only usable through DynamoDB or Secrets Manager, never directly.
      const keyStatements = statementsOn(statements, logicalIdOf(built.stack.encryptionKey));
      for (const statement of keyStatements) {
        expect(JSON.stringify(statement.Condition)).toMatch(/kms:ViaService/);
      }
      const via = (service: string) =>
        [
          ...new Set(
            keyStatements
              .filter((s) => JSON.stringify(s.Condition).includes(`"${service}.${REGION}.amazonaws.com"`))
              .flatMap(actionsOf),
          ),
        ].sort();
      expect(via('dynamodb')).toEqual(expectedKeyActions(route, 'dynamodb', props));
      expect(via('secretsmanager')).toEqual(expectedKeyActions(route, 'secretsmanager', props));
      expect(via('sqs')).toEqual(expectedKeyActions(route, 'sqs', props));
      expect(keyStatements.flatMap(actionsOf).length).toBe(
        expectedKeyActions(route, 'dynamodb', props).length +
          expectedKeyActions(route, 'secretsmanager', props).length +
          expectedKeyActions(route, 'sqs', props).length,
      );
    },
  );

  test.each(routes.map((route) => [route.id, route]))(
    '%s: no action of a service its grants do not name',
    (_id, route) => {
      const statements = roleStatements(built.template, roleLogicalId(built.stack, route.id));
      const services = [...new Set(statements.flatMap(actionsOf).map((action) => action.split(':')[0]!))].sort();
      expect(services).toEqual(expectedServices(route, props));
    },
  );

  test('no statement anywhere allows Resource "*" except X-Ray trace writes (and the job poller\'s log delivery)', () => {
    const wildcard = allIamStatements(built).filter((s) => resourcesOf(s).includes('*'));
    expect(wildcard.length).toBeGreaterThan(0);
    const machinePolicy = built.template.toJSON().Resources[jobPollerPolicyId(built)].Properties.PolicyDocument;
    const onMachine = new Set((machinePolicy.Statement as Statement[]).map((s) => JSON.stringify(s)));
    for (const statement of wildcard) {
      if (onMachine.has(JSON.stringify(statement))) {
        expect(actionsOf(statement).filter((a) => !STATE_MACHINE_UNSCOPED.includes(a))).toEqual([]);
      } else {
        expect(actionsOf(statement).sort()).toEqual(XRAY);
      }
    }
  });

  test("no wildcard actions, and no wildcard ARNs except the provider-key secrets' name prefix", () => {
    expect(unexpectedWildcards(allIamStatements(built))).toEqual([]);
  });

  test('the provider-key prefix appears only on roles of routes that create or delete keys, and the tenant role', () => {
    const holders = routes.filter(
      (route) => providerKeyActionsOf(roleStatements(built.template, roleLogicalId(built.stack, route.id))).length > 0,
    );
    expect(holders.map((route) => route.id).sort()).toEqual(
      routes
        .filter((route) =>
          route.grants.some((grant) => grant === 'providerKeys:create' || grant === 'providerKeys:delete'),
        )
        .map((route) => route.id)
        .sort(),
    );
    // No function reads a provider key with its own role: the tenant-access role's one statement does.
    const everywhere = allIamStatements(built).filter(onProviderKeySecrets);
    expect(everywhere.length).toBe(holders.length + 1);
    const tenantRole = roleStatements(built.template, logicalIdOf(built.stack.tenantAccess.role));
    expect(tenantRole.filter(onProviderKeySecrets)).toEqual([
      expect.objectContaining({ Action: 'secretsmanager:GetSecretValue', Condition: TENANT_SECRET_CONDITION }),
    ]);
  });

  test.each(routes.map((route) => [route.id, route]))(
    '%s: a tenant session grant is AssumeRole and TagSession on the tenant role, and only then',
    (_id, route) => {
      const statements = roleStatements(built.template, roleLogicalId(built.stack, route.id));
      const sts = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sts:')));
      const opens = route.grants.some((grant) => TENANT_GRANTS.includes(grant));
      expect(
        sts.map((s) => ({
          actions: actionsOf(s).sort(),
          resources: resourcesOf(s).map(flatten),
          condition: s.Condition,
        })),
      ).toEqual(
        opens
          ? [
              {
                actions: ['sts:AssumeRole', 'sts:TagSession'],
                resources: [`arn:${PARTITION}:iam::<AWS::AccountId>:role/Gateway-TenantAccess`],
                condition: undefined,
              },
            ]
          : [],
      );
    },
  );
});

describe('provider-key secrets: the create and delete routes each hold only their own action', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ routes: manifestRoutes });
  });
  const actions = (id: string) => providerKeyActionsOf(roleStatements(built.template, roleLogicalId(built.stack, id)));

  test('the create route may create and tag, never delete', () => {
    expect(actions('provider-keys-create')).toEqual(['secretsmanager:CreateSecret', 'secretsmanager:TagResource']);
  });

  test('the delete route may delete, never create', () => {
    expect(actions('provider-keys-delete')).toEqual(['secretsmanager:DeleteSecret']);
  });
});

describe('webhook secrets: each holder has only what it needs', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ routes: manifestRoutes });
  });
  const actions = (id: string) =>
    webhookSecretActionsOf(roleStatements(built.template, roleLogicalId(built.stack, id)));

  test('the secret route reads and makes the first secret; only the rotate route replaces it', () => {
    const readAndCreate = [
      'secretsmanager:CreateSecret',
      'secretsmanager:GetSecretValue',
      'secretsmanager:TagResource',
    ];
    expect(actions('webhooks-secret-get')).toEqual(readAndCreate);
    expect(actions('webhooks-secret-rotate')).toEqual([...readAndCreate, 'secretsmanager:PutSecretValue'].sort());
  });

  test('the job poller: only the Notify task may touch them, and it cannot rotate', () => {
    const poller = built.stack.jobPoller;
    const roleActions = (task: typeof poller.notify) =>
      webhookSecretActionsOf(roleStatements(built.template, logicalIdOf(task.role)));
    expect(roleActions(poller.notify)).toEqual([
      'secretsmanager:CreateSecret',
      'secretsmanager:GetSecretValue',
      'secretsmanager:TagResource',
    ]);
    expect(roleActions(poller.poll)).toEqual([]);
    expect(roleActions(poller.markFailed)).toEqual([]);
  });
});

describe('the wildcard checks can fail', () => {
  let prefixStatement: Statement;
  beforeAll(() => {
    const built = build({ routes: manifestRoutes });
    const found = roleStatements(built.template, roleLogicalId(built.stack, 'provider-keys-delete')).filter(
      onProviderKeySecrets,
    );
    expect(found).toHaveLength(1);
    prefixStatement = found[0]!;
  });

  test('the real provider-key statement passes', () => {
    expect(unexpectedWildcards([prefixStatement])).toEqual([]);
    expect(providerKeyActionsOf([prefixStatement])).toEqual(['secretsmanager:DeleteSecret']);
  });

  test('another action on the provider-key prefix is reported', () => {
    const broadened = {
      ...prefixStatement,
      Action: ['secretsmanager:DeleteSecret', 'secretsmanager:PutResourcePolicy'],
    };
    expect(unexpectedWildcards([broadened])).toEqual([broadened]);
    // A read without the account-tag condition is reported too: only the tenant role's may read.
    const read = { ...prefixStatement, Action: 'secretsmanager:GetSecretValue' };
    expect(unexpectedWildcards([read])).toEqual([read]);
    expect(unexpectedWildcards([{ ...read, Condition: TENANT_SECRET_CONDITION }])).toEqual([]);
  });

  test('a wider secret pattern, or a wildcard action, is reported', () => {
    const everySecret = JSON.parse(JSON.stringify(prefixStatement).replace('/provider-keys/*', '*')) as Statement;
    expect(flatten(resourcesOf(everySecret)[0])).toMatch(/:secret:Gateway\*$/);
    expect(unexpectedWildcards([everySecret])).toEqual([everySecret]);
    const anyAction = { ...prefixStatement, Action: 'secretsmanager:*' };
    expect(unexpectedWildcards([anyAction])).toEqual([anyAction]);
  });
});
