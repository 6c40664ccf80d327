import { Match } from 'aws-cdk-lib/assertions';
import { routes } from '../../lib/routes.js';
import { apiMethods, build, functionLogicalId, syntheticRoute, type Built } from './support.js';

// A synthetic streamed/buffered pair isolates the streaming wiring from the rest of the manifest.
const streamed = syntheticRoute({
  id: 'chat-completions',
  path: '/api/v1/chat/completions',
  streaming: true,
  timeoutSeconds: 900,
});
const buffered = syntheticRoute({ id: 'embeddings', path: '/api/v1/embeddings' });

describe('streaming routes', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ routes: [streamed, buffered] });
  });

  function methodFor(routeId: string): Record<string, any> {
    const fnId = functionLogicalId(built.stack, routeId);
    const found = Object.values(built.template.findResources('AWS::ApiGateway::Method'))
      .map((resource) => resource.Properties)
      .filter((props) => props.HttpMethod !== 'OPTIONS' && JSON.stringify(props.Integration.Uri).includes(`"${fnId}"`));
    expect(found).toHaveLength(1);
    return found[0];
  }

  test('a STREAM route streams through API Gateway for up to 15 minutes', () => {
    const { Integration } = methodFor(streamed.id);
    expect(Integration.Type).toBe('AWS_PROXY');
    expect(Integration.ResponseTransferMode).toBe('STREAM');
    expect(Integration.TimeoutInMillis).toBe(15 * 60 * 1000);
    expect(JSON.stringify(Integration.Uri)).toContain('/response-streaming-invocations');
  });

  test('a STREAM route also gets an IAM-authenticated response-streaming function URL', () => {
    built.template.resourceCountIs('AWS::Lambda::Url', 1);
    built.template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'AWS_IAM',
      InvokeMode: 'RESPONSE_STREAM',
      TargetFunctionArn: { 'Fn::GetAtt': [functionLogicalId(built.stack, streamed.id), 'Arn'] },
    });
    built.template.hasOutput('ChatCompletionsStreamUrl', { Value: Match.anyValue() });
  });

  test('a buffered route keeps the buffered invocation and has no function URL', () => {
    const { Integration } = methodFor(buffered.id);
    expect(Integration.ResponseTransferMode).toBeUndefined();
    expect(JSON.stringify(Integration.Uri)).toContain('/invocations');
    expect(JSON.stringify(Integration.Uri)).not.toContain('response-streaming');
    expect(built.stack.endpoints.get(buffered.id)?.functionUrl).toBeUndefined();
  });
});

describe('streaming in the real manifest', () => {
  let built: Built;
  beforeAll(() => {
    built = build();
  });

  test('POST /api/v1/chat/completions streams: STREAM integration and an IAM response-streaming function URL', () => {
    const route = routes.find((r) => r.method === 'POST' && r.path === '/api/v1/chat/completions');
    expect(route?.streaming).toBe(true);
    const found = apiMethods(built.template).filter(
      (m) => m.method === 'POST' && m.path === '/api/v1/chat/completions',
    );
    expect(found).toHaveLength(1);
    const { Integration } = found[0]!.props;
    const fnId = functionLogicalId(built.stack, route!.id);
    expect(JSON.stringify(Integration.Uri)).toContain(`"${fnId}"`);
    expect(Integration.Type).toBe('AWS_PROXY');
    expect(Integration.ResponseTransferMode).toBe('STREAM');
    expect(Integration.TimeoutInMillis).toBe(15 * 60 * 1000);
    expect(JSON.stringify(Integration.Uri)).toContain('/response-streaming-invocations');

    built.template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'AWS_IAM',
      InvokeMode: 'RESPONSE_STREAM',
      TargetFunctionArn: { 'Fn::GetAtt': [fnId, 'Arn'] },
    });
    // 224 MB: sized from a 20 s stream's measured CPU and memory (lib/stream-sizing.ts).
    expect(built.template.toJSON().Resources[fnId].Properties).toMatchObject({ Timeout: 900, MemorySize: 224 });
    built.template.hasOutput('ChatCompletionsStreamUrl', { Value: Match.anyValue() });
  });

  test('only streaming routes get a function URL', () => {
    built.template.resourceCountIs('AWS::Lambda::Url', routes.filter((r) => r.streaming).length);
    for (const route of routes) {
      expect([route.id, built.stack.endpoints.get(route.id)?.functionUrl !== undefined]).toEqual([
        route.id,
        route.streaming,
      ]);
    }
  });
});
