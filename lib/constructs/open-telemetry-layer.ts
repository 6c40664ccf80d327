import type { IAspect } from 'aws-cdk-lib';
import { type ILayerVersion, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { Construct, IConstruct } from 'constructs';
import { EndpointFunction } from './endpoint-function.js';

/**
 * The AWS Distro for OpenTelemetry layer for Node.js ("AWS Lambda Layer for OpenTelemetry",
 * `AWSOpenTelemetryDistroJs`, the one AWS now recommends over the legacy `aws-otel-nodejs-*`
 * layers with their collector extension): one layer for x86_64 and arm64, published by region.
 * These are its ARNs for ADOT JavaScript v0.12.0, as the ADOT documentation lists them
 * (aws-otel.github.io, "Lambda layer ARNs", July 2026). Context `otelLayerArn` overrides the
 * table (a newer version, a region it lacks, or `off`); docs/deployment.md says how.
 */
const ADOT_NODEJS_LAYERS: Readonly<Record<string, string>> = {
  'af-south-1': '904233096616:15',
  'ap-east-1': '888577020596:15',
  'ap-east-2': '412664885777:4',
  'ap-northeast-1': '615299751070:15',
  'ap-northeast-2': '615299751070:15',
  'ap-northeast-3': '615299751070:15',
  'ap-south-1': '615299751070:15',
  'ap-south-2': '796973505492:15',
  'ap-southeast-1': '615299751070:15',
  'ap-southeast-2': '615299751070:15',
  'ap-southeast-3': '039612877180:15',
  'ap-southeast-4': '713881805771:15',
  'ap-southeast-5': '152034782359:8',
  'ap-southeast-6': '313828097273:3',
  'ap-southeast-7': '980416031188:8',
  'ca-central-1': '615299751070:15',
  'ca-west-1': '595944127152:8',
  'cn-north-1': '440179912924:8',
  'cn-northwest-1': '440180067931:8',
  'eu-central-1': '615299751070:15',
  'eu-central-2': '156041407956:15',
  'eu-north-1': '615299751070:15',
  'eu-south-1': '257394471194:15',
  'eu-south-2': '490004653786:15',
  'eu-west-1': '615299751070:15',
  'eu-west-2': '615299751070:15',
  'eu-west-3': '615299751070:15',
  'il-central-1': '746669239226:15',
  'me-central-1': '739275441131:15',
  'me-south-1': '980921751758:12',
  'mx-central-1': '610118373846:8',
  'sa-east-1': '615299751070:15',
  'us-east-1': '615299751070:15',
  'us-east-2': '615299751070:15',
  'us-west-1': '615299751070:15',
  'us-west-2': '615299751070:15',
};

/**
 * The `@opentelemetry/api` that layer bundles. The functions' own copy of the API finds the
 * layer's provider only if its minor version is not newer than this (lambdas/observability/tracer.ts);
 * test/unit/observability/otel-api-version.test.ts compares it with the one package.json installs.
 */
export const ADOT_LAYER_OTEL_API_VERSION = '1.9.1';

/**
 * What the layer needs besides being attached: its wrapper script (which loads the SDK before
 * the handler, through `--import` for an ES module handler), and the choices made for it.
 * Application Signals is off: its unsampled spans and service metrics are billed apart from
 * X-Ray, and the gateway's own metrics already cover requests, errors and latency; spans then go,
 * sampled as Lambda's X-Ray segment is, to the X-Ray daemon that active tracing runs. Message
 * content capture stays off for any GenAI instrumentation the layer has: prompts and answers
 * never go into a span.
 */
export const OTEL_LAYER_ENVIRONMENT: Readonly<Record<string, string>> = {
  AWS_LAMBDA_EXEC_WRAPPER: '/opt/otel-instrument',
  OTEL_AWS_APPLICATION_SIGNALS_ENABLED: 'false',
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false',
};

/** The layer's ARN in a region, or undefined where the table has none. */
export function adotLayerArnFor(region: string): string | undefined {
  const entry = ADOT_NODEJS_LAYERS[region];
  if (entry === undefined) return undefined;
  const [account, version] = entry.split(':');
  const partition = region.startsWith('cn-') ? 'aws-cn' : 'aws';
  return `arn:${partition}:lambda:${region}:${account}:layer:AWSOpenTelemetryDistroJs:${version}`;
}

/**
 * Puts the layer and its environment on every endpoint function of the scope it is added to
 * (GatewayStack adds it to itself, so the task functions and the custom resource's get it too).
 */
export class OpenTelemetryLayer implements IAspect {
  /** Aspects run again when an app is synthesized again (a test's second look): add the layer once. */
  private readonly done = new WeakSet<EndpointFunction>();

  constructor(private readonly layer: ILayerVersion) {}

  /** The aspect for the layer at `layerArn`, imported into `scope`'s stack. */
  static fromArn(scope: Construct, layerArn: string): OpenTelemetryLayer {
    return new OpenTelemetryLayer(LayerVersion.fromLayerVersionArn(scope, 'OpenTelemetryLayer', layerArn));
  }

  visit(node: IConstruct): void {
    if (!(node instanceof EndpointFunction) || this.done.has(node)) return;
    this.done.add(node);
    node.fn.addLayers(this.layer);
    for (const [name, value] of Object.entries(OTEL_LAYER_ENVIRONMENT)) node.fn.addEnvironment(name, value);
  }
}
