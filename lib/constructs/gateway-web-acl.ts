import { ArnFormat, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnIPSet, CfnLoggingConfiguration, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { EDGE_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../lambdas/identity/edge-headers.js';
import { retainedLogGroup } from './retained-log-group.js';

/** Requests one client address may send in 5 minutes before WAF blocks it for a while. */
export const DEFAULT_WAF_RATE_LIMIT = 30_000;

export interface GatewayWebAclProps {
  /**
   * Source addresses (CIDRs, IPv4 or IPv6) allowed to call `/api/admin/*`; every other address
   * is blocked there before a function runs. @default - admin routes are open to every address
   * (they still need the admin token)
   */
  readonly adminAllowList?: readonly string[];
  /**
   * Requests per 5 minutes from one client address (WAF's rate-based rule). A tenant's backend
   * behind one NAT address sends all its traffic from it: raise this for such tenants.
   * @default DEFAULT_WAF_RATE_LIMIT (100 a second on average)
   */
  readonly rateLimitPer5Minutes?: number;
  /** @default RetentionDays.THREE_MONTHS */
  readonly logRetention?: RetentionDays;
  /**
   * The console distribution's edge secret. Requests that carry it came through the distribution,
   * whose edge addresses many viewers share: the rate rule and the admin allow-list then count the
   * viewer address the distribution sends (lambdas/identity/edge-headers.ts) instead.
   * @default - none: every request is counted by its source address
   */
  readonly edgeSecret?: ISecret;
}

/**
 * Rules of AWS's managed groups that read the request body. A body here is a prompt, an answer
 * format or an image: text about XSS, Log4Shell or a metadata address, code and large uploads are
 * ordinary input to an AI gateway, so these rules count (visible in the WAF logs and metrics)
 * instead of blocking; the gateway's own validation and guardrails judge bodies.
 */
const BODY_RULES_COUNTED: Readonly<Record<string, readonly string[]>> = {
  AWSManagedRulesCommonRuleSet: [
    'SizeRestrictions_BODY',
    'CrossSiteScripting_BODY',
    'GenericLFI_BODY',
    'GenericRFI_BODY',
    'EC2MetaDataSSRF_BODY',
    // Some HTTP clients send no User-Agent; a missing header is not an attack on this API.
    'NoUserAgent_HEADER',
  ],
  AWSManagedRulesKnownBadInputsRuleSet: ['Log4JRCE_BODY', 'JavaDeserializationRCE_BODY'],
  AWSManagedRulesAmazonIpReputationList: [],
};

/** Headers that carry credentials: WAF logs them redacted. */
export const WAF_REDACTED_HEADERS = ['authorization', 'x-api-key', 'cookie', EDGE_SECRET_HEADER] as const;

const errorBody = (code: string, type: string, message: string): CfnWebACL.CustomResponseBodyProperty => ({
  contentType: 'APPLICATION_JSON',
  content: JSON.stringify({ success: false, error: { code, message, type, param: null } }),
});

const not = (statement: CfnWebACL.StatementProperty): CfnWebACL.StatementProperty => ({
  notStatement: { statement },
});

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

/**
 * The stack's own regional web ACL for the API stage: AWS's IP reputation, common and
 * known-bad-inputs groups (body rules counted, see above), a rate-based rule per client address,
 * and optionally an address allow-list for the admin routes. Its logs go to a log group of the
 * stack (`aws-waf-logs-<stack>`, the prefix WAF requires) with credentials redacted.
 */
export class GatewayWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: GatewayWebAclProps = {}) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const rateLimit = props.rateLimitPer5Minutes ?? DEFAULT_WAF_RATE_LIMIT;
    if (!Number.isInteger(rateLimit) || rateLimit < 10 || rateLimit > 2_000_000_000)
      throw new Error(`WAF rate limit ${rateLimit} must be a whole number from 10 to 2,000,000,000 (WAF's range)`);

    const rules: CfnWebACL.RuleProperty[] = [];
    const allowList = props.adminAllowList ?? [];
    const edge = props.edgeSecret && this.edgeMatch(props.edgeSecret);
    if (allowList.length > 0) rules.push(this.adminAllowListRule(allowList, rules.length, edge));
    rules.push(
      this.rateRule('RatePerClientAddress', rules.length, rateLimit, { aggregateKeyType: 'IP' }, edge && not(edge)),
    );
    // Through the distribution: each viewer by the address its edge saw. A proven request without
    // a usable address (none is expected: the function always sets it) counts as one client.
    if (edge) {
      rules.push(
        this.rateRule(
          'RatePerViewerAddress',
          rules.length,
          rateLimit,
          {
            aggregateKeyType: 'FORWARDED_IP',
            forwardedIpConfig: { headerName: VIEWER_ADDRESS_HEADER, fallbackBehavior: 'MATCH' },
          },
          edge,
        ),
      );
    }
    for (const [group, counted] of Object.entries(BODY_RULES_COUNTED)) {
      rules.push({
        name: group,
        priority: rules.length,
        overrideAction: { none: {} },
        statement: {
          managedRuleGroupStatement: {
            vendorName: 'AWS',
            name: group,
            ruleActionOverrides: counted.map((name) => ({ name, actionToUse: { count: {} } })),
          },
        },
        visibilityConfig: visibility(`${stackName}-${group}`),
      });
    }

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `${stackName}-api`,
      description: `AI gateway ${stackName}: managed rule groups, a rate limit per client address`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      // In both error styles at once, as API Gateway's own answers are (lib/gateway-responses.ts);
      // a managed rule's block is API Gateway's WAF_FILTERED answer.
      customResponseBodies: {
        rate: errorBody('RATE_LIMIT_EXCEEDED', 'rate_limit_error', 'Too many requests from this address; retry later'),
        admin: errorBody('FORBIDDEN', 'permission_error', 'This address may not call the admin API'),
      },
      rules,
      visibilityConfig: visibility(`${stackName}-api`),
    });

    const logs = retainedLogGroup(
      this,
      'Logs',
      props.logRetention ?? RetentionDays.THREE_MONTHS,
      `aws-waf-logs-${stackName}`,
    );
    new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      // The group's ARN without the `:*` that LogGroup.logGroupArn ends with: WAF refuses it.
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: logs.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      redactedFields: WAF_REDACTED_HEADERS.map((name) => ({ singleHeader: { Name: name } })),
    });
  }

  /** WAF counts over a sliding 5 minutes and lifts the block once the address slows down. */
  private rateRule(
    name: string,
    priority: number,
    limit: number,
    key: Pick<CfnWebACL.RateBasedStatementProperty, 'aggregateKeyType' | 'forwardedIpConfig'>,
    scopeDownStatement: CfnWebACL.StatementProperty | undefined,
  ): CfnWebACL.RuleProperty {
    return {
      name,
      priority,
      action: {
        block: {
          customResponse: {
            responseCode: 429,
            customResponseBodyKey: 'rate',
            responseHeaders: [{ name: 'Retry-After', value: '60' }],
          },
        },
      },
      statement: {
        rateBasedStatement: {
          limit,
          evaluationWindowSec: 300,
          ...key,
          ...(scopeDownStatement ? { scopeDownStatement } : {}),
        },
      },
      visibilityConfig: visibility(`${Stack.of(this).stackName}-${name}`),
    };
  }

  /**
   * The request carries the edge secret: it came through the console's distribution. The value
   * is a dynamic reference CloudFormation resolves at deploy, never in the template.
   */
  private edgeMatch(secret: ISecret): CfnWebACL.StatementProperty {
    return {
      byteMatchStatement: {
        fieldToMatch: { singleHeader: { Name: EDGE_SECRET_HEADER } },
        positionalConstraint: 'EXACTLY',
        searchString: secret.secretValue.unsafeUnwrap(),
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
  }

  /**
   * Blocks `/api/admin/` paths (with or without the stage in front) from addresses not listed:
   * the source address, or through the distribution the viewer's.
   */
  private adminAllowListRule(
    cidrs: readonly string[],
    priority: number,
    edge: CfnWebACL.StatementProperty | undefined,
  ): CfnWebACL.RuleProperty {
    const stackName = Stack.of(this).stackName;
    const sets = (['IPV4', 'IPV6'] as const)
      .map((version) => ({ version, addresses: cidrs.filter((cidr) => cidr.includes(':') === (version === 'IPV6')) }))
      .filter(({ addresses }) => addresses.length > 0)
      .map(
        ({ version, addresses }) =>
          new CfnIPSet(this, `AdminAllowList${version}`, {
            name: `${stackName}-admin-${version.toLowerCase()}`,
            scope: 'REGIONAL',
            ipAddressVersion: version,
            addresses: [...addresses],
          }),
      );
    const anyOf = (statements: CfnWebACL.StatementProperty[]) =>
      statements.length === 1 ? statements[0]! : { orStatement: { statements } };
    const bySource = anyOf(sets.map((set) => ({ ipSetReferenceStatement: { arn: set.attrArn } })));
    const byViewer = anyOf(
      sets.map((set) => ({
        ipSetReferenceStatement: {
          arn: set.attrArn,
          ipSetForwardedIpConfig: {
            headerName: VIEWER_ADDRESS_HEADER,
            fallbackBehavior: 'NO_MATCH',
            position: 'FIRST',
          },
        },
      })),
    );
    const listed = edge
      ? {
          orStatement: {
            statements: [
              { andStatement: { statements: [not(edge), bySource] } },
              { andStatement: { statements: [edge, byViewer] } },
            ],
          },
        }
      : bySource;
    return {
      name: 'AdminRoutesFromAllowedAddresses',
      priority,
      action: { block: { customResponse: { responseCode: 403, customResponseBodyKey: 'admin' } } },
      statement: {
        andStatement: {
          statements: [
            {
              byteMatchStatement: {
                fieldToMatch: { uriPath: {} },
                positionalConstraint: 'CONTAINS',
                searchString: '/api/admin/',
                // Decoded and lower-cased first, so an encoded or re-cased path cannot slip by.
                textTransformations: [
                  { priority: 0, type: 'URL_DECODE' },
                  { priority: 1, type: 'LOWERCASE' },
                ],
              },
            },
            not(listed),
          ],
        },
      },
      visibilityConfig: visibility(`${stackName}-AdminRoutesFromAllowedAddresses`),
    };
  }
}
