import { App } from 'aws-cdk-lib';
import { Annotations, Template } from 'aws-cdk-lib/assertions';
import { readGatewayContext } from '../../lib/context.js';
import { adotLayerArnFor, OTEL_LAYER_ENVIRONMENT } from '../../lib/constructs/open-telemetry-layer.js';
import { GatewayStack } from '../../lib/gateway-stack.js';
import { build, manifestRoutes, REGION } from './support.js';

/** The layer as the ADOT documentation lists it for REGION (eu-west-1), written out here. */
const EU_WEST_1_LAYER = 'arn:aws:lambda:eu-west-1:615299751070:layer:AWSOpenTelemetryDistroJs:15';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;
const functionsOf = (resources: Resources) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::Lambda::Function');

describe('the OpenTelemetry layer', () => {
  let resources: Resources;
  beforeAll(() => {
    resources = build().template.toJSON().Resources;
  });

  test("every function has the region's layer, its environment and active tracing", () => {
    const functions = functionsOf(resources);
    // The routes' functions, the job poller's and session runner's tasks, the usage pipeline's, the custom resource's.
    expect(functions.length).toBeGreaterThan(manifestRoutes.length);
    for (const [id, fn] of functions) {
      expect([id, fn.Properties.Layers]).toEqual([id, [EU_WEST_1_LAYER]]);
      expect([id, fn.Properties.Environment.Variables]).toEqual([
        id,
        expect.objectContaining({
          AWS_LAMBDA_EXEC_WRAPPER: '/opt/otel-instrument',
          OTEL_AWS_APPLICATION_SIGNALS_ENABLED: 'false',
          OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false',
        }),
      ]);
      // Lambda's segment and the trace id it passes in, which the layer's spans join; and its X-Ray daemon.
      expect([id, fn.Properties.TracingConfig]).toEqual([id, { Mode: 'Active' }]);
    }
  });

  test('an app synthesized again (aspects run again) still has the layer once per function', () => {
    const built = build();
    Annotations.fromStack(built.stack);
    for (const [id, fn] of functionsOf(Template.fromStack(built.stack).toJSON().Resources)) {
      expect([id, fn.Properties.Layers]).toEqual([id, [EU_WEST_1_LAYER]]);
    }
  });

  test('the table builds the layer ARN for its region and partition, and knows no made-up region', () => {
    expect(adotLayerArnFor(REGION)).toBe(EU_WEST_1_LAYER);
    expect(adotLayerArnFor('us-east-1')).toBe(
      'arn:aws:lambda:us-east-1:615299751070:layer:AWSOpenTelemetryDistroJs:15',
    );
    expect(adotLayerArnFor('cn-north-1')).toMatch(
      /^arn:aws-cn:lambda:cn-north-1:\d{12}:layer:AWSOpenTelemetryDistroJs:\d+$/,
    );
    expect(adotLayerArnFor('xx-nowhere-1')).toBeUndefined();
  });

  test('a given layer ARN replaces the table; off leaves functions without layer and wrapper', () => {
    const own = 'arn:aws:lambda:eu-west-1:123456789012:layer:OwnOtelBuild:7';
    for (const [, fn] of functionsOf(build({ openTelemetryLayerArn: own }).template.toJSON().Resources)) {
      expect(fn.Properties.Layers).toEqual([own]);
    }
    for (const [, fn] of functionsOf(build({ openTelemetryLayerArn: false }).template.toJSON().Resources)) {
      expect(fn.Properties.Layers).toBeUndefined();
      for (const name of Object.keys(OTEL_LAYER_ENVIRONMENT)) {
        expect(fn.Properties.Environment.Variables[name]).toBeUndefined();
      }
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
  });

  test('a region the table does not know needs the ARN from context, and synth says so', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
    expect(() => new GatewayStack(app, 'Nowhere', { env: { region: 'xx-nowhere-1' }, routes: manifestRoutes })).toThrow(
      /no AWS Distro for OpenTelemetry layer is known for region xx-nowhere-1: set context otelLayerArn/,
    );
  });
});

describe('context otelLayerArn', () => {
  const read = (otelLayerArn: unknown) =>
    readGatewayContext(new App({ context: { otelLayerArn } }).node, { gatewayVersion: '1', region: 'eu-west-1' })
      .otelLayerArn;

  test('a layer version ARN in the region, or off', () => {
    expect(read(undefined)).toBeUndefined();
    expect(read('off')).toBe(false);
    expect(read(' arn:aws:lambda:eu-west-1:615299751070:layer:AWSOpenTelemetryDistroJs:16 ')).toBe(
      'arn:aws:lambda:eu-west-1:615299751070:layer:AWSOpenTelemetryDistroJs:16',
    );
  });

  test('refuses what is not a layer version ARN, and a layer in another region', () => {
    expect(() => read('AWSOpenTelemetryDistroJs:16')).toThrow(
      /context otelLayerArn .* is not a Lambda layer version ARN/,
    );
    expect(() => read('arn:aws:lambda:eu-west-1:615299751070:layer:AWSOpenTelemetryDistroJs')).toThrow(
      /not a Lambda layer version ARN/,
    );
    expect(() => read('arn:aws:lambda:us-east-1:615299751070:layer:AWSOpenTelemetryDistroJs:15')).toThrow(
      /context otelLayerArn is in us-east-1, but functions in eu-west-1 can only use a layer there/,
    );
    expect(() => read(15)).toThrow(/context otelLayerArn must be a string/);
  });
});
