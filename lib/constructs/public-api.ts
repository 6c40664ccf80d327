import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  AwsIntegration,
  EndpointType,
  type IResource,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseTransferMode,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import {
  GATEWAY_RESPONSES,
  gatewayResponseCors,
  gatewayResponseTemplate,
  type GatewayResponseSpec,
} from '../gateway-responses.js';
import { acceptsPublishableKey, publishableKeyResources } from '../cors-preflight.js';
import type { RouteSpec } from '../routes.js';
import {
  type ApiGatewayAccountRoleMode,
  DEFAULT_API_GATEWAY_ACCOUNT_ROLE_MODE,
  keepAccountRole,
  UnsetAccountRoleClaim,
} from './api-gateway-account-role.js';
import { addPreflight, type PreflightPolicy } from './cors-preflights.js';
import { GatewayWebAcl, type GatewayWebAclProps } from './gateway-web-acl.js';
import { retainedLogGroup } from './retained-log-group.js';

/** API Gateway's integration timeout for a buffered (non-streaming) REST integration. */
export const BUFFERED_INTEGRATION_TIMEOUT_SECONDS = 29;
/**
 * Kept between a buffered route's function timeout and API Gateway's, so the function answers
 * first: a cold start's init counts against API Gateway's timeout but not the function's, and
 * a handler stops its upstream work 1 s before its own timeout (lambdas/http/middlewares/
 * request-context.ts) and then still writes its answer.
 */
export const BUFFERED_ANSWER_MARGIN_SECONDS = 3;
export const MAX_BUFFERED_FUNCTION_TIMEOUT_SECONDS =
  BUFFERED_INTEGRATION_TIMEOUT_SECONDS - BUFFERED_ANSWER_MARGIN_SECONDS;

// One JSON line per request, with the latency and integration fields that 5xx and timeout triage
// needs. No headers or bodies (they carry API keys, cookies and prompts) and no free-text client
// strings such as the user agent, which could break the JSON; the error message goes in through
// its pre-quoted `messageString` variant for the same reason.
const ACCESS_LOG_FIELDS = JSON.stringify({
  requestId: AccessLogField.contextRequestId(),
  extendedRequestId: AccessLogField.contextExtendedRequestId(),
  requestTimeEpoch: AccessLogField.contextRequestTimeEpoch(),
  ip: AccessLogField.contextIdentitySourceIp(),
  httpMethod: AccessLogField.contextHttpMethod(),
  resourcePath: AccessLogField.contextResourcePath(),
  protocol: AccessLogField.contextProtocol(),
  status: AccessLogField.contextStatus(),
  responseLength: AccessLogField.contextResponseLength(),
  responseLatency: AccessLogField.contextResponseLatency(),
  integrationStatus: AccessLogField.contextIntegrationStatus(),
  integrationLatency: AccessLogField.contextIntegrationLatency(),
  errorType: AccessLogField.contextErrorResponseType(),
  xrayTraceId: AccessLogField.contextXrayTraceId(),
});
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  `${ACCESS_LOG_FIELDS.slice(0, -1)},"error":${AccessLogField.contextErrorMessageString()}}`,
);

export interface PublicApiProps {
  /** @default 'prod' */
  readonly stageName?: string;
  /**
   * The deployment's browser origins, allowed by the CORS preflight with credentials; none means
   * no preflight, except on resources with publishable-key routes. @default []
   */
  readonly corsOrigins?: readonly string[];
  /**
   * The routes `addRoute` will be given: a resource with one that accepts publishable keys gets a
   * preflight that admits any origin (the key's own origins are checked on the real request).
   * @default []
   */
  readonly routes?: readonly RouteSpec[];
  /**
   * The stage's web ACL: the stack's own (GatewayWebAcl, with these settings), an existing
   * WAFv2 web ACL (REGIONAL scope) by ARN, or none.
   * @default - the stack's own, with GatewayWebAcl's defaults
   */
  readonly webAcl?: GatewayWebAclProps | { readonly arn: string } | 'none';
  /** @default RetentionDays.THREE_MONTHS */
  readonly accessLogRetention?: RetentionDays;
  /** Of the execution logs (errors only). @default RetentionDays.THREE_MONTHS */
  readonly executionLogRetention?: RetentionDays;
  /**
   * What the stack does about the account's API Gateway CloudWatch role, which stage logging
   * needs (lib/constructs/api-gateway-account-role.ts). @default 'ifUnset'
   */
  readonly accountRole?: ApiGatewayAccountRoleMode;
  /** Stage-wide throttle for every method. @default DEFAULT_STAGE_THROTTLE */
  readonly throttle?: StageThrottle;
}

/** API Gateway's token bucket for the stage: steady requests per second and the bucket size. */
export interface StageThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * Far above what the per-key limits let one caller send (600 a minute by default), well below
 * the account's 10,000 per second that other APIs in the account share.
 */
export const DEFAULT_STAGE_THROTTLE: StageThrottle = { rateLimit: 500, burstLimit: 1000 };

/** The one public base URL: a REGIONAL REST API (EDGE would cut idle streams after 30 s). */
export class PublicApi extends Construct {
  readonly api: RestApi;
  /** Where API Gateway writes the stage's execution logs, made here so they have a retention. */
  readonly executionLogs: LogGroup;
  /** With the `ifUnset` account role mode: the role and the custom resource that may set it. */
  readonly accountRoleClaim?: UnsetAccountRoleClaim;
  /**
   * The role API Gateway invokes the route functions with: InvokeFunction on each of them, by
   * ARN. One role for all, instead of a resource-based permission on each function (a stack
   * resource per route: CloudFormation allows 500 per stack).
   */
  readonly invokeRole: Role;
  private readonly preflights: PreflightPolicy;

  constructor(scope: Construct, id: string, props: PublicApiProps = {}) {
    super(scope, id);
    const corsOrigins = [...(props.corsOrigins ?? [])];
    const stageName = props.stageName ?? 'prod';
    const accountRole = props.accountRole ?? DEFAULT_API_GATEWAY_ACCOUNT_ROLE_MODE;
    const accessLogs = retainedLogGroup(this, 'AccessLogs', props.accessLogRetention ?? RetentionDays.THREE_MONTHS);

    this.api = new RestApi(this, 'Api', {
      // Named after the stack, so a second stack's API is told apart in the console and metrics.
      restApiName: `${Stack.of(this).stackName}-api`,
      description: 'AI gateway public API',
      endpointTypes: [EndpointType.REGIONAL],
      cloudWatchRole: accountRole === 'set',
      cloudWatchRoleRemovalPolicy: accountRole === 'set' ? RemovalPolicy.RETAIN : undefined,
      deployOptions: {
        stageName,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
        // ERROR only, never data traces: request bodies and headers carry API keys and prompts.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        tracingEnabled: true,
        throttlingRateLimit: (props.throttle ?? DEFAULT_STAGE_THROTTLE).rateLimit,
        throttlingBurstLimit: (props.throttle ?? DEFAULT_STAGE_THROTTLE).burstLimit,
      },
    });
    // Preflights are added resource by resource (not as the API's default, which every resource
    // would inherit): publishable-key resources need their own, and a resource takes one OPTIONS.
    this.preflights = { corsOrigins, publishableKeyResources: publishableKeyResources(props.routes ?? []) };
    this.invokeRole = new Role(this, 'InvokeRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway invoking the AI gateway route functions',
    });
    addPreflight(this.api.root, this.preflights);

    const cors = gatewayResponseCors(corsOrigins.length > 0, this.preflights.publishableKeyResources.size > 0);
    for (const spec of GATEWAY_RESPONSES) this.addGatewayResponse(spec, cors);

    // RestApi always adds an output with a hashed name; the stack publishes the URL as `ApiUrl` instead.
    this.api.node.tryRemoveChild('Endpoint');

    // API Gateway would create this group itself on its first error, without a retention; the
    // stage waits for it, so the service never gets there first.
    this.executionLogs = retainedLogGroup(
      this,
      'ExecutionLogs',
      props.executionLogRetention ?? RetentionDays.THREE_MONTHS,
      `API-Gateway-Execution-Logs_${this.api.restApiId}/${stageName}`,
    );
    this.api.deploymentStage.node.addDependency(this.executionLogs);
    // The stage enables logging, which API Gateway refuses while the account has no role.
    if (accountRole === 'set') {
      keepAccountRole(this.api.node.findChild('CloudWatchRole') as Role);
    } else if (accountRole === 'ifUnset') {
      this.accountRoleClaim = new UnsetAccountRoleClaim(this, 'AccountRoleClaim');
      this.api.deploymentStage.node.addDependency(this.accountRoleClaim.resource);
    }

    const webAcl = props.webAcl ?? {};
    if (webAcl === 'none') {
      Validations.of(this.api).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'The operator turned the web ACL off (-c waf=off); abuse is bounded by per-key rate limits in the ' +
          'functions and the stage throttle, and every request without a valid key still costs an invocation.',
      });
    } else {
      const webAclArn = 'arn' in webAcl ? webAcl.arn : new GatewayWebAcl(this, 'Waf', webAcl).webAcl.attrArn;
      new CfnWebACLAssociation(this, 'WebAcl', { resourceArn: this.api.deploymentStage.stageArn, webAclArn });
    }

    const selfAuthenticated =
      'Every function authenticates its own requests (sk_/pk_ API keys checked ' +
      'against hashed records, the dashboard session cookie, or the admin token from Secrets Manager), ' +
      'because one route accepts several schemes that no single API Gateway authorizer covers; CORS ' +
      'preflight (OPTIONS), GET /api/health and GET /api/v1/openapi.json (the interface description) ' +
      'are public by design.';
    Validations.of(this.api).acknowledge(
      { id: 'AwsSolutions-APIG4', reason: selfAuthenticated },
      {
        id: 'AwsSolutions-COG4',
        reason:
          `${selfAuthenticated} Cognito is only the password check behind the login route, which ` +
          'issues an opaque session cookie, not a Cognito token an authorizer could verify.',
      },
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Bodies and parameters are validated in the functions against the interface schemas, so ' +
          "errors name the field and rule in the route's error shape (OpenAI or envelope); API Gateway " +
          'validators would answer in their own shape.',
      },
    );
  }

  /** API Gateway's own answers in the project's error shape (lib/gateway-responses.ts). */
  private addGatewayResponse(spec: GatewayResponseSpec, cors: Readonly<Record<string, string>>): void {
    this.api.addGatewayResponse(spec.type, {
      type: ResponseType.of(spec.type),
      statusCode: spec.status === undefined ? undefined : String(spec.status),
      responseHeaders: { ...cors, ...spec.headers },
      templates: { 'application/json': gatewayResponseTemplate(spec) },
    });
  }

  /** Adds the route's method as a Lambda proxy integration; streaming routes stream through. */
  addRoute(route: RouteSpec, handler: IFunction): void {
    if (!route.streaming && route.timeoutSeconds > MAX_BUFFERED_FUNCTION_TIMEOUT_SECONDS) {
      throw new Error(
        `route ${route.id}: a ${route.timeoutSeconds} s function timeout behind API Gateway's ` +
          `${BUFFERED_INTEGRATION_TIMEOUT_SECONDS} s buffered integration would let the caller get a 504 while ` +
          `the work goes on; at most ${MAX_BUFFERED_FUNCTION_TIMEOUT_SECONDS} s, or make the route streaming`,
      );
    }
    // A Lambda proxy integration that API Gateway calls with the invoke role (credentialsRole),
    // not through a resource-based permission per function: no stack resource per route.
    this.invokeRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [handler.functionArn] }),
    );
    const integration = new AwsIntegration({
      proxy: true,
      service: 'lambda',
      // The versions and paths Lambda's API has for each (streaming's is 2021-11-15).
      path: route.streaming
        ? `2021-11-15/functions/${handler.functionArn}/response-streaming-invocations`
        : `2015-03-31/functions/${handler.functionArn}/invocations`,
      options: {
        credentialsRole: this.invokeRole,
        ...(route.streaming
          ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: Duration.minutes(15) }
          : {}),
      },
    });
    if (acceptsPublishableKey(route) && !this.preflights.publishableKeyResources.has(route.path)) {
      throw new Error(`route ${route.id} accepts publishable keys but was not among the PublicApi's routes`);
    }
    const resource = this.api.root.resourceForPath(route.path);
    resource.addMethod(route.method, integration, { authorizationType: AuthorizationType.NONE });
    for (let at: IResource | undefined = resource; at; at = at.parentResource) addPreflight(at, this.preflights);
  }

  get url(): string {
    return this.api.url;
  }
}
