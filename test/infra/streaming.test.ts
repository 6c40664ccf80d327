import { Match } from 'aws-cdk-lib/assertions';
import { build, functionLogicalId, syntheticRoute, type Built } from './support.js';

// The manifest has no streaming route yet, so a synthetic one stands in for chat completions.
const streamed = syntheticRoute({ id: 'chat-completions', path: '/api/v1/chat/completions', streaming: true, timeoutSeconds: 900 });
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
