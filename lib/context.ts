import type { Node } from 'constructs';

/** Deployment choices read from CDK context (cdk.json or `-c key=value`). */
export interface GatewayContext {
  readonly stackName: string;
  /** TableV2 with a customer-managed key cannot be rendered region-agnostic. */
  readonly region: string;
  readonly stage: string;
  readonly corsOrigins: readonly string[];
  readonly gatewayVersion: string;
  readonly webAclArn?: string;
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
  };
}

export function parseOrigins(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  let list: unknown = raw;
  if (typeof raw === 'string') {
    list = raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(',');
  }
  if (!Array.isArray(list)) throw new Error('context corsOrigins must be a list of origins');
  const origins = list.map((item) => String(item).trim()).filter((origin) => origin !== '');
  return origins.map((origin) => {
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
  }).filter((origin, index, all) => all.indexOf(origin) === index);
}

function stringContext(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
  return value;
}
