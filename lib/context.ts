import { Duration } from 'aws-cdk-lib';
import type { GatewayWebAclProps } from './constructs/gateway-web-acl.js';
import type { TableBackupsProps } from './constructs/table-backups.js';
import type { Node } from 'constructs';
import { listFamilies } from '../lambdas/catalog/model-catalog.js';
import { isoInstantMs } from '../lambdas/config/configuration.js';
import { DEFAULT_ACCOUNT_CONCURRENCY } from './concurrency-policy.js';
import {
  API_GATEWAY_ACCOUNT_ROLE_MODES,
  type ApiGatewayAccountRoleMode,
  DEFAULT_API_GATEWAY_ACCOUNT_ROLE_MODE,
} from './constructs/api-gateway-account-role.js';
import type { CustomDomainProps } from './constructs/custom-domain.js';
import {
  CONSOLE_PRICE_CLASSES,
  type ConsoleDistributionConfig,
  type ConsolePriceClass,
} from './constructs/console-distribution.js';
import { DASHBOARD_MFA_MODES, type DashboardMfa } from './constructs/user-pool.js';
import type { BedrockGuardrailConfig } from './constructs/endpoint-access.js';
import { DEFAULT_STAGE_THROTTLE, type StageThrottle } from './constructs/public-api.js';
import {
  DEFAULT_MANAGED_INSTANCES_MAX_VCPUS,
  DEFAULT_MANAGED_INSTANCES_ROUTES,
  DEFAULT_MANAGED_INSTANCES_TYPE,
  MIN_MANAGED_INSTANCES_MAX_VCPUS,
  STREAMING_COMPUTE_MODES,
  type ManagedInstancesNetwork,
  type StreamingComputeConfig,
} from './constructs/streaming-capacity.js';
import {
  DEFAULT_NAT_INSTANCE_TYPE,
  MANAGED_INSTANCES_EGRESS_MODES,
  type ManagedInstancesEgress,
} from './constructs/nat-instances.js';
import { AWS_PRICES } from './cost/aws-prices.js';

/** The API's own host name: what the CustomDomain construct needs besides the API. */
export type CustomDomainConfig = Omit<CustomDomainProps, 'api'>;

/** Deployment choices read from CDK context (cdk.json or `-c key=value`). */
export interface GatewayContext {
  readonly stackName: string;
  /** TableV2 with a customer-managed key cannot be rendered region-agnostic. */
  readonly region: string;
  readonly stage: string;
  readonly corsOrigins: readonly string[];
  readonly gatewayVersion: string;
  readonly webAclArn?: string;
  /** The stack's own web ACL, unless `webAclArn` names another or `waf` is off. */
  readonly waf: GatewayWebAclProps | false;
  /** Daily backups of the business tables, unless `backup` is off. */
  readonly backups: Omit<TableBackupsProps, 'tables'> | false;
  /** Base URL of the prompt-template service (https). */
  readonly promptServiceUrl?: string;
  /** Base URL of an upstream theme provider (https). */
  readonly themesProviderUrl?: string;
  readonly guardrail?: BedrockGuardrailConfig;
  /**
   * An OpenAI-compatible moderation API (https) for `content_moderation`, instead of a Bedrock
   * guardrail; its key lives in the ModerationKey secret the stack then creates.
   */
  readonly moderationUrl?: string;
  /** Main alias of the vision family that writes image descriptions. */
  readonly imageDescriberModel?: string;
  readonly stageThrottle: StageThrottle;
  /** Route id to reserved concurrency, over the default partition's value for that route. */
  readonly reservedConcurrency: Readonly<Record<string, number>>;
  /** The account's regional Lambda concurrency quota, which every reservation is checked against. */
  readonly accountConcurrency: number;
  /** Whether the default partition (lib/concurrency-policy.ts) reserves for streaming and control routes. */
  readonly concurrencyPartition: boolean;
  /** What the stack does about the account's API Gateway CloudWatch role. */
  readonly apiGatewayAccountRole: ApiGatewayAccountRoleMode;
  readonly customDomain?: CustomDomainConfig;
  /** Where alarm notifications are e-mailed (an SNS e-mail subscription). */
  readonly alarmEmail?: string;
  /** Whether every dashboard user must have an authenticator (TOTP MFA), or each user chooses. */
  readonly dashboardMfa: DashboardMfa;
  /** When the deprecated POST /api/chat is to stop answering (ISO 8601), announced in its `Sunset` header. */
  readonly legacyChatSunset?: string;
  /** On-demand Lambda, or Lambda Managed Instances, for the streaming routes. */
  readonly streamingCompute: StreamingComputeConfig;
  /** The OpenTelemetry layer's ARN, `false` for none; undefined: the table's for the region. */
  readonly otelLayerArn?: string | false;
  /** The console's distribution (the default), or `false` for the API alone (`-c console=off`). */
  readonly console: ConsoleDistributionConfig | false;
}

export interface ContextDefaults {
  /** Used when no `gatewayVersion` is given, normally the package version. */
  readonly gatewayVersion: string;
  /** Used when no `region` is given, normally CDK_DEFAULT_REGION from the CLI. */
  readonly region?: string;
}

/**
 * Reads and checks the context. `corsOrigins` arrives as a JSON array from cdk.json but as a
 * string from the command line, so both a JSON array and a comma-separated list are accepted.
 */
export function readGatewayContext(node: Node, defaults: ContextDefaults): GatewayContext {
  const stage = stringContext(node, 'stage') ?? 'prod';
  if (!/^[A-Za-z0-9_]{1,128}$/.test(stage)) {
    throw new Error(`context stage "${stage}" must be 1-128 letters, digits or underscores (API Gateway stage name)`);
  }
  const webAclArn = stringContext(node, 'webAclArn');
  if (webAclArn !== undefined && !/^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\//.test(webAclArn)) {
    throw new Error(`context webAclArn "${webAclArn}" is not a REGIONAL WAFv2 web ACL ARN`);
  }
  const region = stringContext(node, 'region') ?? defaults.region;
  if (region === undefined) {
    throw new Error('no AWS region: pass -c region=<region>, or set AWS_REGION / a profile region for the CDK CLI');
  }
  return {
    stackName: stringContext(node, 'stackName') ?? 'AiGateway',
    region,
    stage,
    corsOrigins: parseOrigins(node.tryGetContext('corsOrigins')),
    gatewayVersion: stringContext(node, 'gatewayVersion') ?? defaults.gatewayVersion,
    webAclArn,
    waf:
      parseSwitch('waf', node.tryGetContext('waf')) === false
        ? false
        : {
            adminAllowList: parseAdminAllowList(node.tryGetContext('adminAllowList')),
            rateLimitPer5Minutes: positiveInteger(node, 'wafRateLimit'),
          },
    backups:
      parseSwitch('backup', node.tryGetContext('backup')) === false
        ? false
        : parseBackups(positiveInteger(node, 'backupRetentionDays'), stringContext(node, 'backupCopyVaultArn')),
    promptServiceUrl: parsePromptServiceUrl(stringContext(node, 'promptServiceUrl')),
    themesProviderUrl: parseHttpsBaseUrl('themesProviderUrl', stringContext(node, 'themesProviderUrl')),
    guardrail: parseGuardrail(stringContext(node, 'guardrailId'), stringContext(node, 'guardrailVersion')),
    moderationUrl: parseModerationUrl(stringContext(node, 'moderationUrl'), stringContext(node, 'guardrailId')),
    imageDescriberModel: parseImageDescriberModel(stringContext(node, 'imageDescriberModel')),
    stageThrottle: {
      rateLimit: positiveInteger(node, 'throttleRateLimit') ?? DEFAULT_STAGE_THROTTLE.rateLimit,
      burstLimit: positiveInteger(node, 'throttleBurstLimit') ?? DEFAULT_STAGE_THROTTLE.burstLimit,
    },
    reservedConcurrency: parseReservedConcurrency(node.tryGetContext('reservedConcurrency')),
    accountConcurrency: positiveInteger(node, 'accountConcurrency') ?? DEFAULT_ACCOUNT_CONCURRENCY,
    concurrencyPartition: parseSwitch('concurrencyPartition', node.tryGetContext('concurrencyPartition')) ?? true,
    apiGatewayAccountRole: parseAccountRoleMode(stringContext(node, 'apiGatewayAccountRole')),
    customDomain: parseCustomDomain(region, {
      domainName: stringContext(node, 'domainName'),
      certificateArn: stringContext(node, 'certificateArn'),
      hostedZoneId: stringContext(node, 'hostedZoneId'),
      hostedZoneName: stringContext(node, 'hostedZoneName'),
    }),
    alarmEmail: parseAlarmEmail(stringContext(node, 'alarmEmail')),
    dashboardMfa: parseDashboardMfa(stringContext(node, 'dashboardMfa')),
    legacyChatSunset: parseLegacyChatSunset(stringContext(node, 'legacyChatSunset')),
    otelLayerArn: parseOtelLayerArn(region, stringContext(node, 'otelLayerArn')),
    console: parseConsole(
      {
        console: node.tryGetContext('console'),
        priceClass: stringContext(node, 'consolePriceClass'),
        domainName: stringContext(node, 'consoleDomainName'),
        certificateArn: stringContext(node, 'consoleCertificateArn'),
      },
      stringContext(node, 'hostedZoneId') === undefined
        ? undefined
        : { id: stringContext(node, 'hostedZoneId')!, name: stringContext(node, 'hostedZoneName') ?? '' },
    ),
    streamingCompute: parseStreamingCompute({
      mode: stringContext(node, 'streamingCompute'),
      routes: node.tryGetContext('managedInstancesRoutes'),
      subnetIds: node.tryGetContext('managedInstancesSubnetIds'),
      securityGroupIds: node.tryGetContext('managedInstancesSecurityGroupIds'),
      vpcId: stringContext(node, 'managedInstancesVpcId'),
      instanceType: stringContext(node, 'managedInstancesInstanceType'),
      maxVcpus: node.tryGetContext('managedInstancesMaxVcpus'),
      egress: stringContext(node, 'managedInstancesEgress'),
      natInstanceType: stringContext(node, 'managedInstancesNatInstanceType'),
    }),
  };
}

/** The context keys of the Managed Instances mode, as read from cdk.json or `-c`. */
export interface StreamingComputeContext {
  readonly mode?: string;
  readonly routes?: unknown;
  readonly subnetIds?: unknown;
  readonly securityGroupIds?: unknown;
  readonly vpcId?: string;
  readonly instanceType?: string;
  readonly maxVcpus?: unknown;
  readonly egress?: string;
  readonly natInstanceType?: string;
}

/**
 * `streamingCompute`: `lambda` (the default) or `managed-instances`, with the `managedInstances*`
 * keys that only that mode reads; a key given without the mode is refused rather than ignored.
 */
export function parseStreamingCompute(raw: StreamingComputeContext): StreamingComputeConfig {
  const mode = raw.mode?.trim() ?? 'lambda';
  if (!(STREAMING_COMPUTE_MODES as readonly string[]).includes(mode)) {
    throw new Error(
      `context streamingCompute "${raw.mode}" must be ${STREAMING_COMPUTE_MODES.join(' or ')} ` +
        '(on-demand functions, or Lambda Managed Instances for the streaming routes)',
    );
  }
  const given = Object.entries({
    managedInstancesRoutes: raw.routes,
    managedInstancesSubnetIds: raw.subnetIds,
    managedInstancesSecurityGroupIds: raw.securityGroupIds,
    managedInstancesVpcId: raw.vpcId,
    managedInstancesInstanceType: raw.instanceType,
    managedInstancesMaxVcpus: raw.maxVcpus,
    managedInstancesEgress: raw.egress,
    managedInstancesNatInstanceType: raw.natInstanceType,
  })
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([key]) => key);
  if (mode === 'lambda') {
    if (given.length > 0)
      throw new Error(`context ${given.join(', ')} only applies with -c streamingCompute=managed-instances`);
    return { mode: 'lambda' };
  }
  const routes = parseList('managedInstancesRoutes', raw.routes);
  const instanceType = raw.instanceType?.trim() ?? DEFAULT_MANAGED_INSTANCES_TYPE;
  if (!Object.hasOwn(AWS_PRICES.ec2, instanceType)) {
    throw new Error(
      `context managedInstancesInstanceType "${raw.instanceType}" must be one of ${Object.keys(AWS_PRICES.ec2).join(', ')} ` +
        '(Graviton, as the functions are arm64, and priced by npm run cost)',
    );
  }
  const maxVcpus =
    raw.maxVcpus === undefined || raw.maxVcpus === null || raw.maxVcpus === ''
      ? DEFAULT_MANAGED_INSTANCES_MAX_VCPUS
      : asPositiveInteger(raw.maxVcpus, 'context managedInstancesMaxVcpus');
  if (maxVcpus < MIN_MANAGED_INSTANCES_MAX_VCPUS) {
    throw new Error(
      `context managedInstancesMaxVcpus ${maxVcpus} is below ${MIN_MANAGED_INSTANCES_MAX_VCPUS}, the least a capacity provider allows`,
    );
  }
  const network = parseManagedInstancesNetwork(raw);
  return {
    mode: 'managed-instances',
    routes:
      routes === undefined ? DEFAULT_MANAGED_INSTANCES_ROUTES : routes.join() === 'streaming' ? 'streaming' : routes,
    network,
    ...(network === 'create' ? { egress: parseManagedInstancesEgress(raw) } : {}),
    instanceType,
    maxVcpus,
  };
}

/**
 * The created VPC's way out: `nat-instances` (the default; `managedInstancesNatInstanceType` picks
 * their type) or `nat-gateway`. Both keys are refused with the operator's subnets, whose egress is theirs.
 */
function parseManagedInstancesEgress(raw: StreamingComputeContext): ManagedInstancesEgress {
  const mode = raw.egress?.trim() ?? 'nat-instances';
  if (!(MANAGED_INSTANCES_EGRESS_MODES as readonly string[]).includes(mode)) {
    throw new Error(
      `context managedInstancesEgress "${raw.egress}" must be ${MANAGED_INSTANCES_EGRESS_MODES.join(' or ')} ` +
        '(a NAT instance in each zone of the VPC the stack makes, or one NAT gateway)',
    );
  }
  if (mode === 'nat-gateway') {
    if (raw.natInstanceType !== undefined)
      throw new Error(
        'context managedInstancesNatInstanceType only applies with managedInstancesEgress=nat-instances (the default)',
      );
    return { mode: 'nat-gateway' };
  }
  const instanceType = raw.natInstanceType?.trim() ?? DEFAULT_NAT_INSTANCE_TYPE;
  if (!Object.hasOwn(AWS_PRICES.natInstances, instanceType)) {
    throw new Error(
      `context managedInstancesNatInstanceType "${raw.natInstanceType}" must be one of ${Object.keys(AWS_PRICES.natInstances).join(', ')} ` +
        '(Graviton burstable types, whose bandwidth docs/deployment.md lists and npm run cost prices)',
    );
  }
  return { mode: 'nat-instances', instanceType };
}

const SUBNET_ID = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP_ID = /^sg-[0-9a-f]{8,17}$/;
const VPC_ID = /^vpc-[0-9a-f]{8,17}$/;

/** The operator's subnets (with their security groups or the VPC to make one in), or none: the stack makes a VPC. */
function parseManagedInstancesNetwork(raw: StreamingComputeContext): ManagedInstancesNetwork {
  const subnetIds = parseList('managedInstancesSubnetIds', raw.subnetIds);
  const securityGroupIds = parseList('managedInstancesSecurityGroupIds', raw.securityGroupIds);
  const vpcId = raw.vpcId?.trim();
  if (subnetIds !== undefined && (raw.egress !== undefined || raw.natInstanceType !== undefined))
    throw new Error(
      `context ${raw.egress !== undefined ? 'managedInstancesEgress' : 'managedInstancesNatInstanceType'} is for the VPC ` +
        "the stack makes: with managedInstancesSubnetIds the instances' way out is your subnets' own",
    );
  if (subnetIds === undefined) {
    if (securityGroupIds !== undefined || vpcId !== undefined)
      throw new Error(
        'context managedInstancesSecurityGroupIds and managedInstancesVpcId need managedInstancesSubnetIds: ' +
          'name the subnets the instances run in, or give none of the three and the stack makes a VPC',
      );
    return 'create';
  }
  for (const id of subnetIds)
    if (!SUBNET_ID.test(id))
      throw new Error(`context managedInstancesSubnetIds: "${id}" is not a subnet id like subnet-0abc1234`);
  if (subnetIds.length > 16)
    throw new Error('context managedInstancesSubnetIds: a capacity provider takes at most 16 subnets');
  for (const id of securityGroupIds ?? [])
    if (!SECURITY_GROUP_ID.test(id))
      throw new Error(`context managedInstancesSecurityGroupIds: "${id}" is not a security group id like sg-0abc1234`);
  if ((securityGroupIds?.length ?? 0) > 5)
    throw new Error('context managedInstancesSecurityGroupIds: a capacity provider takes at most 5 security groups');
  if (vpcId !== undefined && !VPC_ID.test(vpcId))
    throw new Error(`context managedInstancesVpcId "${vpcId}" is not a VPC id like vpc-0abc1234`);
  if (securityGroupIds === undefined && vpcId === undefined)
    throw new Error(
      'context managedInstancesSubnetIds needs managedInstancesSecurityGroupIds (groups that allow HTTPS out) ' +
        'or managedInstancesVpcId (the stack then makes such a group in that VPC)',
    );
  return { subnetIds, ...(securityGroupIds ? { securityGroupIds } : {}), ...(vpcId ? { vpcId } : {}) };
}

/** A JSON array or a comma-separated list of ids; undefined when not given. */
function parseList(key: string, raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const list: unknown = typeof raw === 'string' ? (raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(',')) : raw;
  if (!Array.isArray(list)) throw new Error(`context ${key} must be a list (a JSON array or comma-separated)`);
  const items = list.map((item) => String(item).trim()).filter((item) => item !== '');
  if (items.length === 0) throw new Error(`context ${key} is an empty list`);
  return items;
}

/**
 * `otelLayerArn`: a Lambda layer version ARN in the stack's region (a layer is attached only in
 * its own region), or `off` for no layer. lib/constructs/open-telemetry-layer.ts explains the default.
 */
export function parseOtelLayerArn(region: string, raw: string | undefined): string | false | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (value === 'off') return false;
  const arn = /^arn:aws[a-z-]*:lambda:([a-z0-9-]+):\d{12}:layer:[A-Za-z0-9_-]{1,140}:[1-9]\d{0,8}$/.exec(value);
  if (!arn) {
    throw new Error(
      `context otelLayerArn "${raw}" is not a Lambda layer version ARN ` +
        '(arn:aws:lambda:<region>:<account>:layer:AWSOpenTelemetryDistroJs:<version>) nor off',
    );
  }
  if (arn[1] !== region) {
    throw new Error(`context otelLayerArn is in ${arn[1]}, but functions in ${region} can only use a layer there`);
  }
  return value;
}

/** An ISO 8601 date or zoned date-time, checked as the function will read it (LEGACY_CHAT_SUNSET). */
export function parseLegacyChatSunset(raw: string | undefined): string | undefined {
  if (raw === undefined || isoInstantMs(raw) !== undefined) return raw;
  throw new Error(
    `context legacyChatSunset "${raw}" must be an ISO 8601 date (2027-06-30) or date-time with a zone (2027-06-30T00:00:00Z)`,
  );
}

/** An ACM certificate's ARN, its region captured. */
const ACM_CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate\/[0-9a-f-]{36}$/;
const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * `domainName` with `certificateArn` (an ACM certificate in the stack's region, as a regional
 * API requires), and optionally `hostedZoneId` with `hostedZoneName` for the alias records.
 * Half a configuration is refused rather than half deployed.
 */
export function parseCustomDomain(
  region: string,
  raw: { domainName?: string; certificateArn?: string; hostedZoneId?: string; hostedZoneName?: string },
): CustomDomainConfig | undefined {
  const { domainName, certificateArn, hostedZoneId, hostedZoneName } = raw;
  if (
    domainName === undefined &&
    certificateArn === undefined &&
    hostedZoneId === undefined &&
    hostedZoneName === undefined
  ) {
    return undefined;
  }
  if (domainName === undefined || certificateArn === undefined) {
    throw new Error('context domainName and certificateArn go together: set both, or neither');
  }
  if (!HOST_NAME.test(domainName)) throw new Error(`context domainName "${domainName}" is not a lower-case host name`);
  const arn = ACM_CERTIFICATE_ARN.exec(certificateArn);
  if (!arn) throw new Error(`context certificateArn "${certificateArn}" is not an ACM certificate ARN`);
  if (arn[1] !== region) {
    throw new Error(
      `context certificateArn is in ${arn[1]}, but a regional API in ${region} needs a certificate there`,
    );
  }
  if ((hostedZoneId === undefined) !== (hostedZoneName === undefined)) {
    throw new Error('context hostedZoneId and hostedZoneName go together: set both, or neither');
  }
  if (hostedZoneId === undefined || hostedZoneName === undefined) return { domainName, certificateArn };
  if (!/^Z[A-Z0-9]{1,32}$/.test(hostedZoneId))
    throw new Error(`context hostedZoneId "${hostedZoneId}" is not a Route 53 zone id`);
  if (!HOST_NAME.test(hostedZoneName) || !`.${domainName}`.endsWith(`.${hostedZoneName}`)) {
    throw new Error(`context hostedZoneName "${hostedZoneName}" must be a zone that contains ${domainName}`);
  }
  return { domainName, certificateArn, hostedZone: { id: hostedZoneId, name: hostedZoneName } };
}

/**
 * `console` (`on`, the default, or `off`: the API alone), `consolePriceClass` (`100`, `200` or
 * `all`) and `consoleDomainName` with `consoleCertificateArn`, a certificate in us-east-1 (where
 * CloudFront takes them from, whatever the stack's region). The alias records go in the API's
 * hosted zone (`hostedZoneId`) when it contains the name. A key given with the console off is refused.
 */
export function parseConsole(
  raw: { console?: unknown; priceClass?: string; domainName?: string; certificateArn?: string },
  zone?: { id: string; name: string },
): ConsoleDistributionConfig | false {
  const { priceClass, domainName, certificateArn } = raw;
  // On unless turned off: the functions and the web ACL count the viewer's own address behind
  // CloudFront (lambdas/identity/viewer-address.ts), so the console costs the API nothing in
  // protection.
  if (parseSwitch('console', raw.console) === false) {
    const given = Object.entries({ consolePriceClass: priceClass, consoleDomainName: domainName })
      .concat([['consoleCertificateArn', certificateArn]])
      .filter(([, value]) => value !== undefined)
      .map(([key]) => key);
    if (given.length > 0) throw new Error(`context ${given.join(', ')} only applies with the console on`);
    return false;
  }
  if (priceClass !== undefined && !Object.hasOwn(CONSOLE_PRICE_CLASSES, priceClass)) {
    throw new Error(
      `context consolePriceClass "${priceClass}" must be one of ${Object.keys(CONSOLE_PRICE_CLASSES).join(', ')} ` +
        "(CloudFront's edge locations: North America and Europe, adding Asia and Africa, or all)",
    );
  }
  const price = priceClass === undefined ? {} : { priceClass: priceClass as ConsolePriceClass };
  if (domainName === undefined && certificateArn === undefined) return price;
  if (domainName === undefined || certificateArn === undefined) {
    throw new Error('context consoleDomainName and consoleCertificateArn go together: set both, or neither');
  }
  if (!HOST_NAME.test(domainName))
    throw new Error(`context consoleDomainName "${domainName}" is not a lower-case host name`);
  const arn = ACM_CERTIFICATE_ARN.exec(certificateArn);
  if (!arn) throw new Error(`context consoleCertificateArn "${certificateArn}" is not an ACM certificate ARN`);
  if (arn[1] !== 'us-east-1') {
    throw new Error(
      `context consoleCertificateArn is in ${arn[1]}, but CloudFront takes certificates from us-east-1 only`,
    );
  }
  const inZone = zone !== undefined && `.${domainName}`.endsWith(`.${zone.name}`);
  return { ...price, domain: { domainName, certificateArn, ...(inZone ? { hostedZone: zone } : {}) } };
}

/** A whole number of at least 1, from cdk.json (a number) or `-c` (a string). */
function positiveInteger(node: Node, key: string): number | undefined {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return undefined;
  return asPositiveInteger(raw, `context ${key}`);
}

function asPositiveInteger(raw: unknown, what: string): number {
  const value = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new Error(`${what} must be a whole number of at least 1, not ${JSON.stringify(raw)}`);
  }
  return value;
}

/** `on` or `off` (or a JSON boolean from cdk.json). */
export function parseSwitch(key: string, raw: unknown): boolean | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (raw === true || raw === 'on' || raw === 'true') return true;
  if (raw === false || raw === 'off' || raw === 'false') return false;
  throw new Error(`context ${key} must be on or off, not ${JSON.stringify(raw)}`);
}

/** `optional` (the default: each user turns MFA on or not) or `required` (every dashboard user). */
export function parseDashboardMfa(raw: string | undefined): DashboardMfa {
  if (raw === undefined) return 'optional';
  const mode = DASHBOARD_MFA_MODES.find((candidate) => candidate === raw.trim());
  if (mode === undefined) {
    throw new Error(
      `context dashboardMfa "${raw}" must be one of ${DASHBOARD_MFA_MODES.join(', ')} ` +
        '(whether every dashboard user must sign in with an authenticator code)',
    );
  }
  return mode;
}

export function parseAccountRoleMode(raw: string | undefined): ApiGatewayAccountRoleMode {
  if (raw === undefined) return DEFAULT_API_GATEWAY_ACCOUNT_ROLE_MODE;
  const mode = API_GATEWAY_ACCOUNT_ROLE_MODES.find((candidate) => candidate === raw.trim());
  if (mode === undefined) {
    throw new Error(
      `context apiGatewayAccountRole "${raw}" must be one of ${API_GATEWAY_ACCOUNT_ROLE_MODES.join(', ')} ` +
        '(set the account role where none is set, always, or never)',
    );
  }
  return mode;
}

/**
 * `{"chat-completions": 200}` from cdk.json, or the same JSON or `chat-completions=200,health=5`
 * from `-c`. Zero is refused: it would stop the function from running at all.
 */
export function parseReservedConcurrency(raw: unknown): Record<string, number> {
  if (raw === undefined || raw === null || raw === '') return {};
  let entries: [string, unknown][];
  if (typeof raw === 'string' && !raw.trim().startsWith('{')) {
    entries = raw
      .split(',')
      .filter((pair) => pair.trim() !== '')
      .map((pair) => {
        const [id = '', value = '', ...rest] = pair.split('=');
        if (rest.length > 0 || id.trim() === '') {
          throw new Error(`context reservedConcurrency: "${pair}" is not <route id>=<number>`);
        }
        return [id.trim(), value.trim()];
      });
  } else {
    const object: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
    if (typeof object !== 'object' || object === null || Array.isArray(object)) {
      throw new Error('context reservedConcurrency must map route ids to numbers, e.g. {"chat-completions": 200}');
    }
    entries = Object.entries(object);
  }
  return Object.fromEntries(
    entries.map(([id, value]) => [id, asPositiveInteger(value, `context reservedConcurrency.${id}`)]),
  );
}

/**
 * https only, and nothing the client cannot append `/v1/prompts/<id>?...` to: no query, no
 * fragment, and no credentials (the key lives in its secret, never in the template).
 */
export function parsePromptServiceUrl(raw: string | undefined): string | undefined {
  return parseHttpsBaseUrl('promptServiceUrl', raw, 'the key belongs in the prompt service key secret');
}

/** An https base URL for the service named by context `key`: no credentials, query or fragment. */
export function parseHttpsBaseUrl(
  key: string,
  raw: string | undefined,
  credentialsHint = 'the URL is written into function environments',
): string | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`context ${key} "${raw}" is not a URL like https://service.example.com`);
  }
  if (url.protocol !== 'https:') throw new Error(`context ${key} "${raw}" must use https`);
  if (url.username !== '' || url.password !== '') {
    throw new Error(`context ${key} must not carry credentials: ${credentialsHint}`);
  }
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) {
    throw new Error(`context ${key} "${raw}" must be a base URL without query or fragment`);
  }
  return value;
}

/** Bedrock's own ApplyGuardrail formats: `guardrailIdentifier` (id or ARN) and `guardrailVersion`. */
const GUARDRAIL_ID = /^[a-z0-9]+$/;
const GUARDRAIL_ARN = /^arn:aws[a-z-]*:bedrock:[a-z0-9-]{1,20}:\d{12}:guardrail\/[a-z0-9]+$/;
const GUARDRAIL_VERSION = /^([1-9][0-9]{0,7}|DRAFT)$/;

export function parseGuardrail(
  id: string | undefined,
  version: string | undefined,
): BedrockGuardrailConfig | undefined {
  if (id === undefined) {
    if (version !== undefined) throw new Error('context guardrailVersion needs guardrailId');
    return undefined;
  }
  if (!GUARDRAIL_ID.test(id) && !GUARDRAIL_ARN.test(id)) {
    throw new Error(
      `context guardrailId "${id}" is neither a Bedrock guardrail id (lowercase letters and digits) ` +
        'nor a guardrail ARN (arn:aws:bedrock:<region>:<account>:guardrail/<id>)',
    );
  }
  if (version !== undefined && !GUARDRAIL_VERSION.test(version)) {
    throw new Error(`context guardrailVersion "${version}" must be a version number (1, 2, ...) or DRAFT`);
  }
  return version === undefined ? { id } : { id, version };
}

/**
 * The moderation API's `/moderations` URL or the base it is appended to (`https://api.openai.com/v1`):
 * https, no credentials (the key belongs in the ModerationKey secret). One engine at a time: a
 * Bedrock guardrail would win at runtime and leave the API and its secret unused.
 */
export function parseModerationUrl(raw: string | undefined, guardrailId: string | undefined): string | undefined {
  const url = parseHttpsBaseUrl('moderationUrl', raw, 'the key belongs in the ModerationKey secret');
  if (url !== undefined && guardrailId !== undefined) {
    throw new Error(
      'context moderationUrl and guardrailId each choose the content moderation engine: set one, not both',
    );
  }
  return url;
}

/**
 * The describer must be able to see images, so only the main alias of a vision family in the
 * catalog the functions are built with; a typo would otherwise surface only on image requests.
 */
export function parseImageDescriberModel(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const alias = raw.trim();
  const vision = listFamilies()
    .filter((family) => family.vision)
    .map((family) => family.alias);
  if (alias === '' || alias !== alias.toLowerCase() || !vision.includes(alias)) {
    throw new Error(
      `context imageDescriberModel "${raw}" must be the lowercase alias of a vision family: ${vision.join(', ')}`,
    );
  }
  return alias;
}

/** One plain address: SNS sends it a confirmation mail, and a typo would only show as silence. */
export function parseAlarmEmail(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const email = raw.trim();
  if (!/^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/.test(email)) {
    throw new Error(`context alarmEmail "${raw}" is not an e-mail address like ops@example.com`);
  }
  return email;
}

export function parseOrigins(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  let list: unknown = raw;
  if (typeof raw === 'string') {
    list = raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(',');
  }
  if (!Array.isArray(list)) throw new Error('context corsOrigins must be a list of origins');
  const origins = list.map((item) => String(item).trim()).filter((origin) => origin !== '');
  return origins
    .map((origin) => {
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        throw new Error(`context corsOrigins: "${origin}" is not an origin like https://app.example.com`);
      }
      if (url.origin !== origin || !['https:', 'http:'].includes(url.protocol)) {
        throw new Error(`context corsOrigins: "${origin}" must be scheme://host[:port] with no path or trailing slash`);
      }
      return origin;
    })
    .filter((origin, index, all) => all.indexOf(origin) === index);
}

function stringContext(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
  return value;
}

const IPV4_CIDR = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\/(?:3[0-2]|[12]?\d)$/;
const IPV6_CIDR = /^[0-9a-f:]+\/(?:12[0-8]|1[01]\d|[1-9]?\d)$/i;

/**
 * `adminAllowList`: the addresses allowed to call `/api/admin/*`, as CIDRs (IPv4 or IPv6), a JSON
 * array or a comma-separated list. WAF wants CIDRs, so a bare address needs its `/32` or `/128`.
 */
export function parseAdminAllowList(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const list: unknown = typeof raw === 'string' ? (raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(',')) : raw;
  if (!Array.isArray(list)) throw new Error('context adminAllowList must be a list of CIDRs');
  const cidrs = list.map((item) => String(item).trim()).filter((cidr) => cidr !== '');
  for (const cidr of cidrs) {
    const ipv6 = cidr.includes(':');
    if (!(ipv6 ? IPV6_CIDR.test(cidr) && cidr.split('::').length <= 2 : IPV4_CIDR.test(cidr)))
      throw new Error(
        `context adminAllowList: "${cidr}" is not a CIDR like 203.0.113.7/32 or 2001:db8::/48 (an address needs its /32 or /128)`,
      );
  }
  return cidrs.length > 0 ? cidrs : undefined;
}

const BACKUP_VAULT_ARN = /^arn:aws[a-z-]*:backup:[a-z0-9-]+:\d{12}:backup-vault:[A-Za-z0-9_.-]{2,50}$/;

/** `backupRetentionDays` (at least 1) and `backupCopyVaultArn` (a backup vault's ARN). */
export function parseBackups(
  retentionDays: number | undefined,
  copyToVaultArn: string | undefined,
): Omit<TableBackupsProps, 'tables'> {
  if (copyToVaultArn !== undefined && !BACKUP_VAULT_ARN.test(copyToVaultArn))
    throw new Error(
      `context backupCopyVaultArn "${copyToVaultArn}" is not a backup vault ARN like arn:aws:backup:<region>:<account>:backup-vault:<name>`,
    );
  return {
    ...(retentionDays === undefined ? {} : { retention: Duration.days(retentionDays) }),
    ...(copyToVaultArn === undefined ? {} : { copyToVaultArn }),
  };
}
