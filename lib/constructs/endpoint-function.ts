import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  FunctionUrlAuthType,
  InvokeMode,
  LoggingFormat,
  Runtime,
  Tracing,
  type FunctionUrl,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ILogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LAMBDA_BUNDLING } from '../bundling.js';
import { observabilityNames } from '../names.js';
import type { RouteSpec } from '../routes.js';
import type { NagAcknowledgement } from './endpoint-access.js';
import { retainedLogGroup } from './retained-log-group.js';

/** What active tracing writes: Lambda's own segments and, through its X-Ray daemon, the functions' spans. */
const XRAY_WRITES = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'] as const;

/** The repository root: manifest entries are relative to it, whatever the current directory. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a function is built from: a manifest route, or a task function's own spec (no HTTP side). */
export type FunctionSource = Pick<RouteSpec, 'entry' | 'memoryMb' | 'timeoutSeconds'> &
  Partial<Pick<RouteSpec, 'method' | 'path' | 'streaming'>>;

export interface EndpointFunctionProps {
  readonly route: FunctionSource;
  /** @default `AI gateway <method> <path>` */
  readonly description?: string;
  /** Least-privilege statements derived from the route's grants. */
  readonly statements?: readonly PolicyStatement[];
  readonly environment?: Record<string, string>;
  /**
   * cdk-nag findings those statements raise by design; acknowledged on the role's own
   * CloudFormation resource only (not its default policy, not the function).
   */
  readonly acknowledgements?: readonly NagAcknowledgement[];
  /** @default RetentionDays.ONE_MONTH (for the function's own log group, when `logGroup` is not given) */
  readonly logRetention?: RetentionDays;
  /**
   * Where the function logs, shared with others: Lambda then names each log stream
   * `YYYY/MM/DD/<function name>[<version>]<environment id>`, so every line stays traceable to
   * its function. @default - a log group of its own
   */
  readonly logGroup?: ILogGroup;
  /** @default the repository root */
  readonly projectRoot?: string;
  /** @default - none: the function draws on the account's unreserved concurrency */
  readonly reservedConcurrency?: number;
  /** @default the route's `memoryMb` (Managed Instances need at least 2,048 MB) */
  readonly memoryMb?: number;
}

/**
 * The defaults every endpoint function shares: Node.js 24 on arm64, minified ESM bundle with
 * source maps, JSON logs in its own log group (or one it is given), X-Ray active tracing (Lambda's segment, and the
 * X-Ray daemon the OpenTelemetry layer's spans go to: lib/constructs/open-telemetry-layer.ts), and
 * a role holding only what its grants name. Streaming routes also get an IAM-authenticated response-streaming function URL.
 */
export class EndpointFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: Role;
  readonly functionUrl?: FunctionUrl;

  constructor(scope: Construct, id: string, props: EndpointFunctionProps) {
    super(scope, id);
    const { route } = props;
    const projectRoot = props.projectRoot ?? PROJECT_ROOT;
    const description = props.description ?? `AI gateway ${route.method} ${route.path}`;

    const logGroup = props.logGroup ?? retainedLogGroup(this, 'Logs', props.logRetention);

    // An own role instead of the default one, which attaches the AWS-managed
    // AWSLambdaBasicExecutionRole (log writes to every log group in the account).
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description,
      inlinePolicies: {
        Access: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [logGroup.logGroupArn],
            }),
            // Active tracing's own statement, here rather than in a default policy of its own.
            new PolicyStatement({ actions: [...XRAY_WRITES], resources: ['*'] }),
            ...(props.statements ?? []),
          ],
        }),
      },
    });

    const cfnRole = this.role.node.defaultChild!;
    for (const acknowledgement of props.acknowledgements ?? []) {
      Validations.of(cfnRole).acknowledge(acknowledgement);
    }
    Validations.of(cfnRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level ' +
        'permissions (X-Ray has no resource ARNs for them); Resource "*" is the only valid value.',
    });

    const names = observabilityNames(Stack.of(this).stackName);
    this.fn = new NodejsFunction(this, 'Function', {
      entry: join(projectRoot, route.entry),
      handler: 'handler',
      projectRoot,
      depsLockFilePath: join(projectRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? route.memoryMb,
      timeout: Duration.seconds(route.timeoutSeconds),
      reservedConcurrentExecutions: props.reservedConcurrency,
      description,
      // Everything the function may do is in the role's inline policy above: the function gets the
      // role as one that takes no further statements, so no default policy is made beside it (a
      // stack resource per function, and CloudFormation allows 500).
      role: this.role.withoutPolicyUpdates(),
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: names.service,
        POWERTOOLS_METRICS_NAMESPACE: names.namespace,
        ...props.environment,
      },
      // Shared with bench/bundles.ts, so the measured bundles are the deployed ones.
      bundling: {
        format: OutputFormat.ESM,
        target: LAMBDA_BUNDLING.target,
        mainFields: [...LAMBDA_BUNDLING.mainFields],
        minify: LAMBDA_BUNDLING.minify,
        sourceMap: LAMBDA_BUNDLING.sourceMap,
        sourcesContent: LAMBDA_BUNDLING.sourcesContent,
        externalModules: [...LAMBDA_BUNDLING.externalModules],
        banner: LAMBDA_BUNDLING.banner,
      },
    });

    if (route.streaming) {
      this.functionUrl = this.fn.addFunctionUrl({
        authType: FunctionUrlAuthType.AWS_IAM,
        invokeMode: InvokeMode.RESPONSE_STREAM,
      });
    }
  }
}
