import { Match } from 'aws-cdk-lib/assertions';
import { routes } from '../../lib/routes.js';
import { CORS_ALLOW_HEADERS } from '../../lib/constructs/public-api.js';
import { apiMethods as methods, build, functionLogicalId, type Built } from './support.js';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

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
      // Streaming routes: see test/infra/streaming.test.ts.
      expect(props.Integration.ResponseTransferMode === 'STREAM').toBe(route.streaming);
      expect(JSON.stringify(props.Integration.Uri).includes('/response-streaming-invocations')).toBe(route.streaming);
    },
  );

  test('the API has no methods beyond the manifest and CORS preflights', () => {
    const expected = new Set(routes.map((route) => `${route.method} ${route.path}`));
    const extra = methods(built.template).filter(
      (m) => m.method !== 'OPTIONS' && !expected.has(`${m.method} ${m.path}`),
    );
    expect(extra).toEqual([]);
    built.template.resourceCountIs('AWS::Lambda::Function', routes.length);
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
    const preflights = methods(built.template).filter((m) => m.method === 'OPTIONS');
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
    for (const fn of Object.values(functions)) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        ALLOWED_ORIGINS: 'https://app.example.com,https://admin.example.com',
        GATEWAY_VERSION: expect.any(String),
      });
    }
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
  test('has no preflight methods at all', () => {
    const { template } = build({ corsOrigins: [] });
    expect(methods(template).filter((m) => m.method === 'OPTIONS')).toEqual([]);
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'prod' });
  });
});

describe('WAF', () => {
  test('a given web ACL is associated with the stage', () => {
    const webAclArn = 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gateway/abc';
    const { template } = build({ webAclArn });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { WebACLArn: webAclArn });
  });
});
