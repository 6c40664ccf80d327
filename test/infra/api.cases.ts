import { JOB_TASK_FUNCTIONS } from '../../lib/constructs/job-poller-definition.js';
import { SESSION_TASK_FUNCTIONS } from '../../lib/constructs/session-runner-definition.js';
import { USAGE_PIPELINE_FUNCTIONS } from '../../lib/constructs/usage-pipeline.js';
import { Match } from 'aws-cdk-lib/assertions';
import { routes } from '../../lib/routes.js';
import { CORS_ALLOW_HEADERS, publishableKeyResources } from '../../lib/cors-preflight.js';
import { GATEWAY_RESPONSE_CORS_HEADERS } from '../../lib/gateway-responses.js';
import { DEFAULT_WAF_RATE_LIMIT } from '../../lib/constructs/gateway-web-acl.js';
import {
  apiMethods as methods,
  build,
  functionLogicalId,
  logicalIdOf,
  manifestRoutes,
  STACK_NAME,
  type Built,
} from './support.js';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** Their preflight admits any origin: see test/infra/publishable-key-preflight.cases.ts. */
const publishableKeyPaths = new Set(publishableKeyResources(routes).keys());

describe('public API from the route manifest', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ corsOrigins: ['https://app.example.com', 'https://admin.example.com'], stageName: 'live' });
  });

  test.each(routes.map((route) => [route.method, route.path, route]))(
    '%s %s is a Lambda proxy method on its own function',
    (method, path, route) => {
      const found = methods(built.template).filter((m) => m.method === method && m.path === path);
      expect(found).toHaveLength(1);
      const { props } = found[0]!;
      expect(props.AuthorizationType).toBe('NONE');
      expect(props.Integration.Type).toBe('AWS_PROXY');
      expect(props.Integration.IntegrationHttpMethod).toBe('POST');
      expect(JSON.stringify(props.Integration.Uri)).toContain(`"${functionLogicalId(built.stack, route.id)}"`);
      // Streaming routes: see test/infra/streaming.cases.ts.
      expect(props.Integration.ResponseTransferMode === 'STREAM').toBe(route.streaming);
      expect(JSON.stringify(props.Integration.Uri).includes('/response-streaming-invocations')).toBe(route.streaming);
      // Called with the API's invoke role, not through a permission on the function.
      expect(props.Integration.Credentials).toEqual({
        'Fn::GetAtt': [logicalIdOf(built.stack.api.invokeRole), 'Arn'],
      });
    },
  );

  test('the invoke role may invoke exactly the route functions, and no function holds a permission of its own', () => {
    const resources = built.template.toJSON().Resources as Resources;
    expect(Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Permission')).toEqual([]);
    const roleId = logicalIdOf(built.stack.api.invokeRole);
    expect(JSON.stringify(resources[roleId]!.Properties.AssumeRolePolicyDocument)).toContain(
      'apigateway.amazonaws.com',
    );
    const statements = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: any) => ref.Ref === roleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as any[]);
    expect(new Set(statements.flatMap((st) => [st.Action].flat()))).toEqual(new Set(['lambda:InvokeFunction']));
    const invoked = statements.flatMap((st) => [st.Resource].flat()).map((arn: any) => arn['Fn::GetAtt'][0]);
    expect(invoked.sort()).toEqual(routes.map((route) => functionLogicalId(built.stack, route.id)).sort());
    // IAM holds a role's inline policies to 10,240 characters: each ARN at its longest
    // (a 64-character function name in the longest region's name) with its quotes and comma.
    const longestArn = 'arn:aws-us-gov:lambda:ap-southeast-5:123456789012:function:'.length + 64 + 3;
    expect(invoked.length * longestArn + 200).toBeLessThanOrEqual(10_240);
  });

  // CloudFormation refuses a stack of more than 500 resources. A route costs about seven; a
  // deployment's context adds a few (a custom domain, WAF logging). Past this budget, endpoints
  // must move to nested stacks or share functions before another route is added.
  test('the stack keeps 50 of CloudFormation’s 500 resources in hand', () => {
    const count = Object.keys(built.template.toJSON().Resources).length;
    expect({ resources: count, withinBudget: count <= 450 }).toEqual({ resources: count, withinBudget: true });
  });

  test('the API has no methods beyond the manifest and CORS preflights', () => {
    const expected = new Set(routes.map((route) => `${route.method} ${route.path}`));
    const extra = methods(built.template).filter(
      (m) => m.method !== 'OPTIONS' && !expected.has(`${m.method} ${m.path}`),
    );
    expect(extra).toEqual([]);
    // One function per route, plus the job poller's task functions and the usage pipeline's (not API routes)
    // and the function behind the account role custom resource (test/infra/api-gateway-account-role.cases.ts).
    built.template.resourceCountIs(
      'AWS::Lambda::Function',
      routes.length +
        Object.keys(JOB_TASK_FUNCTIONS).length +
        Object.keys(SESSION_TASK_FUNCTIONS).length +
        Object.keys(USAGE_PIPELINE_FUNCTIONS).length +
        1 /* the budget webhook consumer */ +
        1,
    );
  });

  test('the endpoint is REGIONAL (EDGE would cut idle streams after 30 s)', () => {
    built.template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  test('the stage takes the configured name, logs access as JSON and never logs bodies', () => {
    const stages = built.template.findResources('AWS::ApiGateway::Stage') as Resources;
    expect(Object.keys(stages)).toHaveLength(1);
    const stage = Object.values(stages)[0]!.Properties;
    expect(stage.StageName).toBe('live');
    expect(stage.AccessLogSetting.DestinationArn).toBeDefined();
    const sample = String(stage.AccessLogSetting.Format)
      .replace(/\$context\.[A-Za-z.]+/g, '"x"')
      .replace(/""x""/g, '"x"');
    expect(() => JSON.parse(sample)).not.toThrow();
    expect(stage.MethodSettings).toEqual([
      expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', LoggingLevel: 'ERROR', DataTraceEnabled: false }),
    ]);
    expect(stage.TracingEnabled).toBe(true);
  });

  test('CORS preflight allows the configured origins, headers and credentials', () => {
    const preflights = methods(built.template).filter(
      (m) => m.method === 'OPTIONS' && !publishableKeyPaths.has(m.path),
    );
    expect(preflights.length).toBeGreaterThan(0);
    for (const { props } of preflights) {
      const headers = props.Integration.IntegrationResponses[0].ResponseParameters;
      expect(headers['method.response.header.Access-Control-Allow-Credentials']).toBe("'true'");
      const allowed = String(headers['method.response.header.Access-Control-Allow-Headers'])
        .replace(/'/g, '')
        .split(',');
      expect(allowed.sort()).toEqual([...CORS_ALLOW_HEADERS].sort());
      // Several origins: the response template echoes the request Origin only when it is listed.
      const template = JSON.stringify(props.Integration.IntegrationResponses[0].ResponseTemplates);
      expect(template).toContain('https://admin.example.com');
    }
  });

  test('every function gets the allowed origins and the release', () => {
    const functions = built.template.findResources('AWS::Lambda::Function') as Resources;
    // The deployment-time function serves no request.
    delete functions[logicalIdOf(built.stack.api.accountRoleClaim!.handler.fn)];
    expect(Object.keys(functions)).toHaveLength(
      routes.length +
        Object.keys(JOB_TASK_FUNCTIONS).length +
        Object.keys(SESSION_TASK_FUNCTIONS).length +
        Object.keys(USAGE_PIPELINE_FUNCTIONS).length +
        1 /* the budget webhook consumer */,
    );
    for (const fn of Object.values(functions)) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        ALLOWED_ORIGINS: 'https://app.example.com,https://admin.example.com',
        GATEWAY_VERSION: expect.any(String),
      });
    }
  });

  test('the stage throttles every method: 500 per second, burst 1000, by default', () => {
    const stage = Object.values(built.template.findResources('AWS::ApiGateway::Stage') as Resources)[0]!.Properties;
    expect(stage.MethodSettings).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: 500,
        ThrottlingBurstLimit: 1000,
      }),
    ]);
  });

  test("API Gateway's own answers use the shape both error styles read, with CORS headers", () => {
    const responses = gatewayResponses(built);
    expect(Object.keys(responses).sort()).toEqual(
      [
        'DEFAULT_4XX',
        'DEFAULT_5XX',
        'INTEGRATION_TIMEOUT',
        'MISSING_AUTHENTICATION_TOKEN',
        'REQUEST_TOO_LARGE',
        'RESOURCE_NOT_FOUND',
        'THROTTLED',
        'WAF_FILTERED',
      ].sort(),
    );
    const expected: Record<string, [string | undefined, string, string]> = {
      MISSING_AUTHENTICATION_TOKEN: ['404', 'NOT_FOUND', 'not_found_error'],
      RESOURCE_NOT_FOUND: ['404', 'NOT_FOUND', 'not_found_error'],
      THROTTLED: ['429', 'RATE_LIMIT_EXCEEDED', 'rate_limit_error'],
      REQUEST_TOO_LARGE: ['413', 'PAYLOAD_TOO_LARGE', 'invalid_request_error'],
      INTEGRATION_TIMEOUT: ['504', 'GATEWAY_TIMEOUT', 'api_error'],
      WAF_FILTERED: ['403', 'FORBIDDEN', 'permission_error'],
      // The fallbacks keep API Gateway's status: setting one would set it for every type they cover.
      DEFAULT_4XX: [undefined, '$context.error.responseType', 'invalid_request_error'],
      DEFAULT_5XX: [undefined, '$context.error.responseType', 'api_error'],
    };
    for (const [type, response] of Object.entries(responses)) {
      const [status, code, openaiType] = expected[type]!;
      expect([type, response.StatusCode]).toEqual([type, status]);
      const body = JSON.parse(
        String(response.ResponseTemplates['application/json']).replace('$context.error.messageString', '"x"'),
      );
      expect(body).toEqual({
        success: false,
        error: { code, message: expect.any(String), type: openaiType, param: null },
      });
      expect(response.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': 'method.request.header.Origin',
        'gatewayresponse.header.Access-Control-Allow-Credentials': "'true'",
        'gatewayresponse.header.Vary': "'Origin'",
      });
    }
    expect(responses['THROTTLED']!.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
    expect(responses['DEFAULT_5XX']!.ResponseTemplates['application/json']).toContain(
      '"message":$context.error.messageString',
    );
  });

  test('the API URL is an output, once', () => {
    built.template.hasOutput('ApiUrl', { Value: Match.anyValue() });
    const urls = Object.values(built.template.findOutputs('*')).filter((output) =>
      JSON.stringify(output.Value).includes('execute-api'),
    );
    expect(urls).toHaveLength(1);
  });
});

describe('public API without CORS origins', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ corsOrigins: [] });
  });

  test('has no preflight methods, except for routes that accept publishable keys', () => {
    const preflights = methods(built.template).filter((m) => m.method === 'OPTIONS');
    expect(preflights.map((m) => m.path).sort()).toEqual([...publishableKeyPaths].sort());
    built.template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'prod' });
  });

  test('gateway responses echo the origin without credentials, for the publishable-key pages', () => {
    for (const response of Object.values(gatewayResponses(built))) {
      expect(response.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': 'method.request.header.Origin',
        'gatewayresponse.header.Access-Control-Expose-Headers': "'Retry-After'",
        'gatewayresponse.header.Vary': "'Origin'",
      });
      expect(response.ResponseParameters).not.toHaveProperty('gatewayresponse.header.Access-Control-Allow-Credentials');
    }
  });

  test('an API without publishable-key routes or CORS origins gives gateway responses no CORS headers', () => {
    const secretOnly = build({
      corsOrigins: [],
      routes: manifestRoutes.filter((r) => !r.auth.includes('publishableKey')),
    });
    for (const response of Object.values(gatewayResponses(secretOnly))) {
      const headers = Object.keys(response.ResponseParameters ?? {}).map((name) =>
        name.replace('gatewayresponse.header.', ''),
      );
      expect(headers.filter((name) => name in GATEWAY_RESPONSE_CORS_HEADERS)).toEqual([]);
    }
  });
});

describe('throttling and reserved concurrency from props', () => {
  // The default partition: test/infra/concurrency.cases.ts.
  test('the stage throttle and per-route reservations are applied; other functions reserve none', () => {
    const built = build({
      concurrencyPartition: false,
      stageThrottle: { rateLimit: 20, burstLimit: 40 },
      reservedConcurrency: { 'chat-completions': 50, health: 2 },
    });
    built.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 })],
    });
    const reserved = Object.fromEntries(
      routes.map((route) => [
        route.id,
        (built.template.toJSON().Resources[functionLogicalId(built.stack, route.id)].Properties
          .ReservedConcurrentExecutions as number | undefined) ?? null,
      ]),
    );
    expect(reserved).toEqual(
      Object.fromEntries(
        routes.map((route) => [
          route.id,
          ({ 'chat-completions': 50, health: 2 } as Record<string, number>)[route.id] ?? null,
        ]),
      ),
    );
  });

  test('a reservation for a route that does not exist is refused', () => {
    expect(() => build({ reservedConcurrency: { 'chat-completion': 5 } })).toThrow(/chat-completion/);
  });
});

interface GatewayResponseProps {
  StatusCode?: string;
  ResponseParameters: Record<string, string>;
  ResponseTemplates: Record<string, string>;
}

function gatewayResponses(built: Built): Record<string, GatewayResponseProps> {
  const found = built.template.findResources('AWS::ApiGateway::GatewayResponse') as Resources;
  return Object.fromEntries(
    Object.values(found).map((resource) => [
      resource.Properties.ResponseType as string,
      resource.Properties as GatewayResponseProps,
    ]),
  );
}

describe('WAF', () => {
  test('a given web ACL is associated with the stage, and the stack makes none of its own', () => {
    const webAclArn = 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gateway/abc';
    const { template } = build({ webAclArn });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { WebACLArn: webAclArn });
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });

  test("by default the stack's own web ACL guards the stage: reputation, common and bad-input groups, a rate per address", () => {
    const { template } = build();
    const acls = template.findResources('AWS::WAFv2::WebACL');
    expect(Object.keys(acls)).toHaveLength(1);
    const [aclId, acl] = Object.entries(acls)[0]!;
    expect(acl.Properties).toMatchObject({
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Name: `${STACK_NAME}-api`,
    });
    const rules = acl.Properties.Rules as { Name: string; Priority: number; Statement: Record<string, any> }[];
    expect(rules.map((rule) => rule.Name)).toEqual([
      'RatePerClientAddress',
      'AWSManagedRulesCommonRuleSet',
      'AWSManagedRulesKnownBadInputsRuleSet',
      'AWSManagedRulesAmazonIpReputationList',
    ]);
    expect(rules.map((rule) => rule.Priority)).toEqual([0, 1, 2, 3]);
    expect(rules[0]!.Statement).toEqual({
      RateBasedStatement: { Limit: DEFAULT_WAF_RATE_LIMIT, EvaluationWindowSec: 300, AggregateKeyType: 'IP' },
    });
    // Refused in the gateway's error shape, as a 429 with a wait, not WAF's bare 403.
    expect((rules[0] as unknown as { Action: unknown }).Action).toEqual({
      Block: {
        CustomResponse: {
          ResponseCode: 429,
          CustomResponseBodyKey: 'rate',
          ResponseHeaders: [{ Name: 'Retry-After', Value: '60' }],
        },
      },
    });
    const bodies = acl.Properties.CustomResponseBodies as Record<string, { ContentType: string; Content: string }>;
    expect(bodies['rate']!.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(bodies['rate']!.Content)).toMatchObject({
      success: false,
      error: { code: 'RATE_LIMIT_EXCEEDED', type: 'rate_limit_error' },
    });
    // Bodies are prompts: the body rules count rather than block.
    const counted = (rule: (typeof rules)[number]) =>
      (rule.Statement['ManagedRuleGroupStatement'].RuleActionOverrides ?? []).map(
        (o: { Name: string; ActionToUse: unknown }) => [o.Name, o.ActionToUse],
      );
    expect(counted(rules[1]!)).toEqual(
      expect.arrayContaining([
        ['SizeRestrictions_BODY', { Count: {} }],
        ['CrossSiteScripting_BODY', { Count: {} }],
        ['EC2MetaDataSSRF_BODY', { Count: {} }],
      ]),
    );
    expect(counted(rules[2]!)).toEqual([
      ['Log4JRCE_BODY', { Count: {} }],
      ['JavaDeserializationRCE_BODY', { Count: {} }],
    ]);
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [aclId, 'Arn'] },
    });
    // Logs kept three months, credentials redacted.
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: `aws-waf-logs-${STACK_NAME}`,
      RetentionInDays: 90,
    });
    template.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
      ResourceArn: { 'Fn::GetAtt': [aclId, 'Arn'] },
      RedactedFields: [
        { SingleHeader: { Name: 'authorization' } },
        { SingleHeader: { Name: 'x-api-key' } },
        { SingleHeader: { Name: 'cookie' } },
        // The console distribution's edge secret (lambdas/identity/edge-headers.ts).
        { SingleHeader: { Name: 'x-gateway-edge-secret' } },
      ],
    });
  });

  test('an admin allow-list blocks /api/admin/ from every other address, IPv4 and IPv6 alike', () => {
    const { template } = build({
      waf: { adminAllowList: ['203.0.113.7/32', '2001:db8::/48'], rateLimitPer5Minutes: 500 },
    });
    template.resourceCountIs('AWS::WAFv2::IPSet', 2);
    template.hasResourceProperties('AWS::WAFv2::IPSet', { IPAddressVersion: 'IPV4', Addresses: ['203.0.113.7/32'] });
    template.hasResourceProperties('AWS::WAFv2::IPSet', { IPAddressVersion: 'IPV6', Addresses: ['2001:db8::/48'] });
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0]!;
    const [admin, rate] = acl.Properties.Rules as { Name: string; Action: unknown; Statement: any }[];
    expect(admin!.Name).toBe('AdminRoutesFromAllowedAddresses');
    expect(admin!.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 403, CustomResponseBodyKey: 'admin' } } });
    const [path, notListed] = admin!.Statement.AndStatement.Statements;
    expect(path.ByteMatchStatement).toMatchObject({ SearchString: '/api/admin/', PositionalConstraint: 'CONTAINS' });
    expect(notListed.NotStatement.Statement.OrStatement.Statements).toHaveLength(2);
    expect(rate!.Statement.RateBasedStatement.Limit).toBe(500);
  });

  test('waf off: no web ACL and no association', () => {
    const { template } = build({ waf: false });
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });

  test("a rate limit outside WAF's range is refused at synth", () => {
    expect(() => build({ waf: { rateLimitPer5Minutes: 5 } })).toThrow(/WAF rate limit 5/);
  });
});
