import { Aspects, CfnOutput, Stack, Token, type StackProps } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  MEDIA_PROVIDER_IDS,
  MEDIA_PROVIDERS,
  PROVIDER_IDS,
  SEARCH_PROVIDER_IDS,
} from '../lambdas/catalog/model-catalog.js';
import { isoInstantMs } from '../lambdas/config/configuration.js';
import { ENV } from '../lambdas/config/environment.js';
import type { CustomDomainConfig } from './context.js';
import type { BedrockGuardrailConfig } from './constructs/endpoint-access.js';
import { DEFAULT_ACCOUNT_CONCURRENCY, planReservations } from './concurrency-policy.js';
import type { ApiGatewayAccountRoleMode } from './constructs/api-gateway-account-role.js';
import { ConsoleDistribution, type ConsoleDistributionConfig } from './constructs/console-distribution.js';
import { CustomDomain } from './constructs/custom-domain.js';
import { EncryptionKey } from './constructs/encryption-key.js';
import { endpointAccess } from './constructs/endpoint-access.js';
import { EndpointFunction } from './constructs/endpoint-function.js';
import { StreamingCapacity, type StreamingComputeConfig } from './constructs/streaming-capacity.js';
import { MANAGED_INSTANCES_SIZING } from './stream-sizing.js';
import { retainedLogGroup } from './constructs/retained-log-group.js';
import { Monitoring } from './constructs/monitoring.js';
import { adotLayerArnFor, OpenTelemetryLayer } from './constructs/open-telemetry-layer.js';
import { JOB_NOTIFY_GRANTS, JOB_TASK_GRANTS, JobPoller } from './constructs/job-poller.js';
import { SESSION_TASK_GRANTS, SessionRunner } from './constructs/session-runner.js';
import { PublicApi, type StageThrottle } from './constructs/public-api.js';
import { GatewaySecrets } from './constructs/secrets.js';
import { Tables } from './constructs/tables.js';
import { TenantAccessRole } from './constructs/tenant-access-role.js';
import { UsageExports, type UsageExportsProps } from './constructs/usage-exports.js';
import { BudgetNotices, BUDGET_WEBHOOK_GRANTS } from './constructs/budget-webhooks.js';
import { UsagePipeline } from './constructs/usage-pipeline.js';
import { DashboardUserPool, type DashboardMfa } from './constructs/user-pool.js';
import { pascal } from './names.js';
import { RetainExceptOnCreate } from './retain-except-on-create.js';
import { routes as manifestRoutes, type RouteSpec } from './routes.js';
import type { GatewayWebAclProps } from './constructs/gateway-web-acl.js';
import { TableBackups, type TableBackupsProps } from './constructs/table-backups.js';

export interface GatewayStackProps extends StackProps {
  /** @default the route manifest in lib/routes.ts */
  readonly routes?: readonly RouteSpec[];
  /** API Gateway stage name. @default 'prod' */
  readonly stageName?: string;
  /** Origins allowed for CORS and cookie-authenticated writes. @default [] */
  readonly corsOrigins?: readonly string[];
  /** The release /api/health reports. @default 'unknown' */
  readonly gatewayVersion?: string;
  /**
   * An existing regional WAFv2 web ACL to attach to the API stage instead of the stack's own.
   * @default - the stack's own (`waf`)
   */
  readonly webAclArn?: string;
  /**
   * The stack's own web ACL (lib/constructs/gateway-web-acl.ts), or `false` for none.
   * Ignored when `webAclArn` is given. @default {} (on, with its defaults)
   */
  readonly waf?: Omit<GatewayWebAclProps, 'edgeSecret'> | false;
  /**
   * Daily AWS Backup of the identity, usage and jobs tables (lib/constructs/table-backups.ts),
   * or `false` for none. @default {} (on: 35 days, no copy)
   */
  readonly backups?: Omit<TableBackupsProps, 'tables'> | false;
  /** Retention of each function's log group. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * Base URL of the prompt-template service, for routes with `promptService:read`.
   * @default - none: requests naming a prompt template fail as a configuration error
   */
  readonly promptServiceUrl?: string;
  /**
   * Base URL of an upstream theme provider, for routes with `themesProvider:read`.
   * @default - none: GET /api/v1/themes answers from the embedded catalog
   */
  readonly themesProviderUrl?: string;
  /**
   * The Bedrock guardrail routes with `guardrails:apply` use for content moderation.
   * @default - none: those routes moderate with the functions' local rules
   */
  readonly guardrail?: BedrockGuardrailConfig;
  /**
   * An OpenAI-compatible moderation API (its `/moderations` URL or base, https) routes with
   * `guardrails:apply` use for content moderation instead; the stack creates the ModerationKey
   * secret for its key, empty until the operator sets it. Not with `guardrail`.
   * @default - none
   */
  readonly moderationUrl?: string;
  /**
   * Main alias of the vision family that describes images for models without vision.
   * @default - none: the function uses the catalog's first vision family
   */
  readonly imageDescriberModel?: string;
  /** Stage-wide API Gateway throttle. @default DEFAULT_STAGE_THROTTLE (500 per second, burst 1000) */
  readonly stageThrottle?: StageThrottle;
  /**
   * Reserved concurrency per route id: capacity kept for that function and its ceiling. Wins
   * over the default partition's value for that route.
   * @default - the default partition's only (lib/concurrency-policy.ts)
   */
  readonly reservedConcurrency?: Readonly<Record<string, number>>;
  /** The account's regional Lambda concurrency quota, which reservations are checked against. @default 1000 */
  readonly accountConcurrency?: number;
  /** The default reservations of lib/concurrency-policy.ts, under `reservedConcurrency`. @default true */
  readonly concurrencyPartition?: boolean;
  /** The account's API Gateway CloudWatch role: set it where unset, always, or never. @default 'ifUnset' */
  readonly apiGatewayAccountRole?: ApiGatewayAccountRoleMode;
  /**
   * The API under the operator's own host name (lib/constructs/custom-domain.ts).
   * @default - none: the execute-api URL only
   */
  readonly customDomain?: CustomDomainConfig;
  /** Schedule, retention and query limits of the usage exports. @default - UsageExportsProps' defaults */
  readonly usageExports?: Omit<UsageExportsProps, 'table' | 'encryptionKey'>;
  /**
   * Whether every dashboard user must have an authenticator (the pool's MFA on), or each user
   * chooses (MFA optional). @default 'optional'
   */
  readonly dashboardMfa?: DashboardMfa;
  /** Subscribed to the alarm topic. @default - none: subscribe to the AlarmTopicArn output later */
  readonly alarmEmail?: string;
  /**
   * When the deprecated POST /api/chat is to stop answering (ISO 8601 date or zoned date-time),
   * announced in its answers' `Sunset` header. @default - none: no sunset is announced
   */
  readonly legacyChatSunset?: string;
  /**
   * Where the streaming routes run: on-demand Lambda, or Lambda Managed Instances
   * (lib/constructs/streaming-capacity.ts). @default { mode: 'lambda' }
   */
  readonly streamingCompute?: StreamingComputeConfig;
  /**
   * The AWS Distro for OpenTelemetry layer every function traces through
   * (lib/constructs/open-telemetry-layer.ts), or `false` for none (Lambda's own X-Ray segment only).
   * @default - the layer's ARN for the stack's region from the table there
   */
  readonly openTelemetryLayerArn?: string | false;
  /**
   * The browser console on a CloudFront distribution that also passes `/api/*` to the stage
   * (lib/constructs/console-distribution.ts); its origins join `corsOrigins` as the origins
   * cookie-authenticated writes are accepted from.
   * @default - none here; bin/gateway.ts passes one unless context `console` is `off`
   */
  readonly console?: ConsoleDistributionConfig;
}

/** The route whose function describes images (lambdas/chat/image-descriptions.ts). */
export const IMAGE_DESCRIBER_ROUTE = 'chat-completions';
/**
 * Routes whose functions ask the image describer, so are told its model (image analysis, and the
 * Responses API, which runs the chat core as chat completions does).
 */
export const IMAGE_DESCRIBER_ROUTES: readonly string[] = [IMAGE_DESCRIBER_ROUTE, 'images-analyze', 'responses-create'];
/** The deprecated route whose answers announce `legacyChatSunset`. */
export const LEGACY_CHAT_ROUTE = 'chat-legacy';

/** The whole gateway: one function per manifest route behind one REST API. */
export class GatewayStack extends Stack {
  readonly encryptionKey: IKey;
  readonly tables: Tables;
  readonly secrets: GatewaySecrets;
  readonly dashboard: DashboardUserPool;
  /** The usage table's exports to S3 for finance, and the Athena tables over them. */
  readonly usageExports: UsageExports;
  /** Undefined when the stack was built with `backups: false`. */
  readonly backups?: TableBackups;
  /**
   * Name prefix of the secrets holding callers' own provider keys (`<stack name>/provider-keys/`):
   * created at runtime, one per key, under the stack's KMS key.
   */
  readonly providerKeySecretPrefix: string;
  /** Name prefix of the per-account webhook signing secrets (created at runtime). */
  readonly webhookSecretPrefix: string;
  readonly api: PublicApi;
  /** Keyed by route id. */
  readonly endpoints: ReadonlyMap<string, EndpointFunction>;
  /** Alarms, their topic and the dashboard; job and export constructs attach their own alarms. */
  readonly monitoring: Monitoring;
  /** The state machine that polls video and fashion jobs, and its task functions. */
  readonly jobPoller: JobPoller;
  /** The state machine that continues arena sessions longer than one invocation, and its task. */
  readonly sessionRunner: SessionRunner;
  /** The usage aggregator, the ledger's retry queue and its redrive (docs/deployment.md, "Usage pipeline"). */
  readonly usagePipeline: UsagePipeline;
  /** The budget webhooks' queue, dead-letter queue and consumer. */
  readonly budgetNotices: BudgetNotices;
  /** The Managed Instances of the streaming routes; undefined on on-demand Lambda. */
  readonly streamingCapacity?: StreamingCapacity;
  /** The role tenant-facing reads assume per account (docs/deployment.md, "Isolation by IAM"). */
  readonly tenantAccess: TenantAccessRole;
  /** The console's distribution and bucket; undefined without the `console` prop. */
  readonly console?: ConsoleDistribution;

  constructor(scope: Construct, id: string, props: GatewayStackProps = {}) {
    super(scope, id, props);
    Aspects.of(this).add(new RetainExceptOnCreate());
    const otelLayerArn = openTelemetryLayerArnOf(this, props.openTelemetryLayerArn);
    if (otelLayerArn) Aspects.of(this).add(OpenTelemetryLayer.fromArn(this, otelLayerArn));
    const routes = props.routes ?? manifestRoutes;
    const corsOrigins = props.corsOrigins ?? [];
    assertUniqueRoutes(routes);
    assertKnownRoutes(routes, Object.keys(props.reservedConcurrency ?? {}), 'reservedConcurrency');
    const compute = props.streamingCompute ?? { mode: 'lambda' };
    const onInstances = routesOnInstances(routes, compute);
    const reservedOnInstances = Object.keys(props.reservedConcurrency ?? {}).filter((id) => onInstances.has(id));
    if (reservedOnInstances.length > 0) {
      throw new Error(
        `reservedConcurrency names routes on Managed Instances (${reservedOnInstances.join(', ')}): their ` +
          "concurrency is the capacity provider's (managedInstancesMaxVcpus), not a Lambda reservation",
      );
    }
    // Routes on the instances draw on the capacity provider, not on the account's Lambda concurrency.
    const reservations = planReservations(
      routes.filter((route) => !onInstances.has(route.id)),
      {
        accountConcurrency: props.accountConcurrency ?? DEFAULT_ACCOUNT_CONCURRENCY,
        partition: props.concurrencyPartition ?? true,
        explicit: props.reservedConcurrency ?? {},
      },
    );
    if (props.imageDescriberModel !== undefined && !routes.some((route) => route.id === IMAGE_DESCRIBER_ROUTE)) {
      throw new Error(`imageDescriberModel is set but there is no ${IMAGE_DESCRIBER_ROUTE} route to give it to`);
    }
    if (props.legacyChatSunset !== undefined) {
      if (!routes.some((route) => route.id === LEGACY_CHAT_ROUTE))
        throw new Error(`legacyChatSunset is set but there is no ${LEGACY_CHAT_ROUTE} route to give it to`);
      // The function refuses a malformed one at its first call; refuse it here, before a deploy.
      if (isoInstantMs(props.legacyChatSunset) === undefined)
        throw new Error(`legacyChatSunset "${props.legacyChatSunset}" is not an ISO 8601 date or zoned date-time`);
    }

    const encryptionKey = (this.encryptionKey = new EncryptionKey(this, 'EncryptionKey').key);
    const tables = (this.tables = new Tables(this, 'Tables', { encryptionKey }));
    if (props.moderationUrl !== undefined && props.guardrail !== undefined) {
      throw new Error('moderationUrl and guardrail each choose the content moderation engine: give one, not both');
    }
    const secrets = (this.secrets = new GatewaySecrets(this, 'Secrets', {
      encryptionKey,
      moderationKey: props.moderationUrl !== undefined,
      edgeSecret: props.console !== undefined,
    }));
    const dashboard = (this.dashboard = new DashboardUserPool(this, 'Dashboard', {
      mfaRequired: props.dashboardMfa === 'required',
    }));
    const usageExports = (this.usageExports = new UsageExports(this, 'UsageExports', {
      ...props.usageExports,
      table: tables.get('usage').table,
      encryptionKey,
    }));
    const providerKeySecretPrefix = (this.providerKeySecretPrefix = `${this.stackName}/provider-keys/`);
    const webhookSecretPrefix = (this.webhookSecretPrefix = `${this.stackName}/webhook-secrets/`);
    this.api = new PublicApi(this, 'PublicApi', {
      routes,
      stageName: props.stageName,
      corsOrigins,
      webAcl: props.webAclArn
        ? { arn: props.webAclArn }
        : props.waf === false
          ? 'none'
          : { ...props.waf, ...(secrets.edgeSecret ? { edgeSecret: secrets.edgeSecret } : {}) },
      throttle: props.stageThrottle,
      accountRole: props.apiGatewayAccountRole,
    });
    if (props.customDomain) new CustomDomain(this, 'CustomDomain', { api: this.api.api, ...props.customDomain });
    // The stage's name as given, not the stage's reference: the functions' environment names the
    // distribution, so the distribution must not wait on the deployment, which waits on them.
    this.console = props.console
      ? new ConsoleDistribution(this, 'Console', {
          ...props.console,
          restApiId: this.api.api.restApiId,
          stageName: props.stageName ?? 'prod',
          edgeSecret: secrets.edgeSecret!,
        })
      : undefined;
    if (props.backups !== false) {
      this.backups = new TableBackups(this, 'Backups', {
        ...props.backups,
        // The cache can be rebuilt; everything else is a business record (jobs hold arena ballots).
        tables: tables.all.filter(({ schema }) => schema.name !== 'cache').map(({ table }) => table),
      });
    }

    const shared = {
      [ENV.allowedOrigins]: [...corsOrigins, ...(this.console?.origins ?? [])].join(','),
      [ENV.gatewayVersion]: props.gatewayVersion ?? 'unknown',
    };
    const usagePipeline = (this.usagePipeline = new UsagePipeline(this, 'UsagePipeline', {
      table: tables.get('usage').table,
      encryptionKey,
      logRetention: props.logRetention,
      environment: shared,
    }));
    const budgetNotices = (this.budgetNotices = new BudgetNotices(this, 'BudgetNotices', {
      encryptionKey,
      logRetention: props.logRetention,
      environment: shared,
    }));
    const tenantAccess = (this.tenantAccess = new TenantAccessRole(this, 'TenantAccess', {
      tables,
      encryptionKey,
      providerKeySecretPrefix,
    }));
    const resources = {
      encryptionKey,
      tables,
      tenantAccessRoleArn: tenantAccess.roleArn,
      usageRetryQueue: usagePipeline.retryQueue,
      budgetNoticeQueue: budgetNotices.queue,
      secrets,
      dashboard,
      providerKeySecretPrefix,
      webhookSecretPrefix,
      promptServiceUrl: props.promptServiceUrl,
      themesProviderUrl: props.themesProviderUrl,
      guardrail: props.guardrail,
      moderationUrl: props.moderationUrl,
    };
    budgetNotices.consume(endpointAccess(BUDGET_WEBHOOK_GRANTS, resources));
    const jobPoller = (this.jobPoller = new JobPoller(this, 'JobPoller', {
      taskAccess: endpointAccess(JOB_TASK_GRANTS, resources),
      notifyAccess: endpointAccess(JOB_NOTIFY_GRANTS, resources),
      logRetention: props.logRetention,
      environment: shared,
    }));
    const sessionTaskAccess = endpointAccess(SESSION_TASK_GRANTS, resources);
    const sessionRunner = (this.sessionRunner = new SessionRunner(this, 'SessionRunner', {
      taskAccess: sessionTaskAccess,
      logRetention: props.logRetention,
      environment: shared,
    }));
    if (sessionTaskAccess.tenantSessions) tenantAccess.trust(sessionRunner.run.role);
    const capacity = (this.streamingCapacity =
      compute.mode === 'managed-instances'
        ? new StreamingCapacity(this, 'StreamingCapacity', { ...compute, logRetention: props.logRetention })
        : undefined);
    const endpointScope = new Construct(this, 'Endpoints');
    // One log group for every route's function: a group per function cost a stack resource
    // each, and CloudFormation allows 500. Lambda puts the function's name in each stream's name.
    const endpointLogs = retainedLogGroup(endpointScope, 'Logs', props.logRetention);
    const endpoints = new Map<string, EndpointFunction>();
    for (const route of routes) {
      const access = endpointAccess(route.grants, {
        ...resources,
        jobPollerArn: jobPoller.stateMachine.stateMachineArn,
        sessionRunnerArn: sessionRunner.stateMachine.stateMachineArn,
      });
      const describer: Record<string, string> =
        IMAGE_DESCRIBER_ROUTES.includes(route.id) && props.imageDescriberModel !== undefined
          ? { [ENV.imageDescriberModel]: props.imageDescriberModel }
          : {};
      const sunset: Record<string, string> =
        route.id === LEGACY_CHAT_ROUTE && props.legacyChatSunset !== undefined
          ? { [ENV.legacyChatSunset]: props.legacyChatSunset }
          : {};
      const endpoint = new EndpointFunction(endpointScope, pascal(route.id), {
        route,
        statements: access.statements,
        environment: { ...shared, ...describer, ...sunset, ...access.environment },
        acknowledgements: access.acknowledgements,
        logGroup: endpointLogs,
        reservedConcurrency: reservations.get(route.id),
        ...(onInstances.has(route.id) ? { memoryMb: MANAGED_INSTANCES_SIZING.memoryMb } : {}),
      });
      if (capacity && onInstances.has(route.id)) capacity.addFunction(endpoint.fn);
      if (access.tenantSessions) tenantAccess.trust(endpoint.role);
      this.api.addRoute(route, endpoint.fn);
      endpoints.set(route.id, endpoint);
      if (endpoint.functionUrl) {
        new CfnOutput(this, `${pascal(route.id)}StreamUrl`, {
          value: endpoint.functionUrl.url,
          description: `IAM-signed response-streaming URL for ${route.method} ${route.path}`,
        });
      }
    }
    this.endpoints = endpoints;
    const monitoring = (this.monitoring = new Monitoring(this, 'Monitoring', {
      api: this.api.api,
      encryptionKey,
      functions: new Map([...endpoints].map(([routeId, endpoint]) => [routeId, endpoint.fn])),
      providers: [
        ...PROVIDER_IDS,
        ...SEARCH_PROVIDER_IDS,
        ...MEDIA_PROVIDER_IDS.filter((id) => MEDIA_PROVIDERS[id].meteredAttempts),
      ],
      alarmEmail: props.alarmEmail,
      tables: new Map(tables.all.map(({ schema, table }) => [schema.name, table])),
      accountConcurrency: props.accountConcurrency ?? DEFAULT_ACCOUNT_CONCURRENCY,
    }));
    monitoring.monitorAlarm(usageExports.failureAlarm);
    for (const alarm of usagePipeline.alarms) monitoring.monitorAlarm(alarm);
    for (const alarm of budgetNotices.alarms) monitoring.monitorAlarm(alarm);
    // The NAT instances' recovery alarms act on the instance themselves; the topic hears of it too.
    for (const alarm of capacity?.alarms ?? []) monitoring.monitorAlarm(alarm);
    monitoring.monitorStateMachine('JobPoller', jobPoller.stateMachine);
    monitoring.monitorStateMachine('SessionRunner', sessionRunner.stateMachine);
    // Last, after every construct that attaches alarms (monitorStateMachine, monitorAlarm).
    monitoring.addAlarmStatus();

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Gateway base URL' });
    new CfnOutput(this, 'AdminTokenSecretArn', { value: secrets.adminToken.secretArn });
    new CfnOutput(this, 'PlatformKeysSecretArn', {
      value: secrets.platformKeys.secretArn,
      description: 'Set after deploy: JSON {"<provider>":"<key>"}',
    });
    new CfnOutput(this, 'PromptServiceKeySecretArn', {
      value: secrets.promptServiceKey.secretArn,
      description: 'Set after deploy: the prompt-template service API key (plain string)',
    });
    if (secrets.moderationKey) {
      new CfnOutput(this, 'ModerationKeySecretArn', {
        value: secrets.moderationKey.secretArn,
        description: 'Set after deploy: the content moderation API key (plain string)',
      });
    }
    new CfnOutput(this, 'ProviderKeySecretPrefix', {
      value: providerKeySecretPrefix,
      description: "Name prefix of the secrets holding callers' own provider keys (created at runtime)",
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: monitoring.topic.topicArn,
      description: 'SNS topic every alarm notifies',
    });
    new CfnOutput(this, 'JobStateMachineArn', { value: jobPoller.stateMachine.stateMachineArn });
    new CfnOutput(this, 'SessionStateMachineArn', { value: sessionRunner.stateMachine.stateMachineArn });
    new CfnOutput(this, 'UserPoolId', { value: dashboard.userPool.userPoolId });
    new CfnOutput(this, 'UserPoolClientId', { value: dashboard.client.userPoolClientId });
    new CfnOutput(this, 'UsageTableArn', { value: tables.get('usage').table.tableArn });
    new CfnOutput(this, 'UsageExportBucketName', { value: usageExports.bucket.bucketName });
    new CfnOutput(this, 'UsageExportKeyArn', { value: encryptionKey.keyArn });
    new CfnOutput(this, 'UsageGlueDatabase', { value: usageExports.databaseName });
    new CfnOutput(this, 'UsageAthenaWorkGroup', { value: usageExports.workGroupName });
    new CfnOutput(this, 'UsageExportStateMachineArn', { value: usageExports.stateMachine.stateMachineArn });
    new CfnOutput(this, 'BudgetNoticeDeadLetterQueueUrl', { value: budgetNotices.deadLetters.queueUrl });
    new CfnOutput(this, 'UsageRetryQueueUrl', { value: usagePipeline.retryQueue.queueUrl });
    new CfnOutput(this, 'UsageRetryDeadLetterQueueUrl', { value: usagePipeline.retryDeadLetters.queueUrl });
    new CfnOutput(this, 'UsageAggregatorFailureQueueUrl', { value: usagePipeline.aggregatorFailures.queueUrl });
    for (const { schema, table } of tables.all) {
      new CfnOutput(this, `${pascal(schema.name)}TableName`, { value: table.tableName });
    }
  }
}

function assertUniqueRoutes(routes: readonly RouteSpec[]): void {
  const seen = new Set<string>();
  for (const route of routes) {
    for (const key of [`id ${route.id}`, `route ${route.method} ${route.path}`]) {
      if (seen.has(key)) throw new Error(`route manifest lists ${key} twice`);
      seen.add(key);
    }
  }
}

/** The ids of the routes the compute mode puts on Managed Instances: streaming routes only. */
function routesOnInstances(routes: readonly RouteSpec[], compute: StreamingComputeConfig): Set<string> {
  if (compute.mode === 'lambda') return new Set();
  if (compute.routes === 'streaming')
    return new Set(routes.filter((route) => route.streaming).map((route) => route.id));
  assertKnownRoutes(routes, compute.routes, 'managedInstancesRoutes');
  const buffered = compute.routes.filter((id) => !routes.find((route) => route.id === id)!.streaming);
  if (buffered.length > 0) {
    throw new Error(
      `managedInstancesRoutes names routes that do not stream: ${buffered.join(', ')}; only streaming routes ` +
        `(${routes
          .filter((route) => route.streaming)
          .map((route) => route.id)
          .join(', ')}) run on Managed Instances`,
    );
  }
  return new Set(compute.routes);
}

function assertKnownRoutes(routes: readonly RouteSpec[], ids: readonly string[], setting: string): void {
  const unknown = ids.filter((id) => !routes.some((route) => route.id === id));
  if (unknown.length > 0) throw new Error(`${setting} names routes that do not exist: ${unknown.join(', ')}`);
}

/** The layer's ARN as given, else the table's for the stack's region; refused where neither is known. */
function openTelemetryLayerArnOf(stack: Stack, given: string | false | undefined): string | false {
  if (given !== undefined) return given;
  const known = Token.isUnresolved(stack.region) ? undefined : adotLayerArnFor(stack.region);
  if (known === undefined) {
    throw new Error(
      `no AWS Distro for OpenTelemetry layer is known for region ${stack.region}: set context otelLayerArn ` +
        'to the layer ARN for it (AWSOpenTelemetryDistroJs), or to off for none (docs/deployment.md)',
    );
  }
  return known;
}
