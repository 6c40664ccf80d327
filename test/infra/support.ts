import { readFileSync } from 'node:fs';
import { App, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { EndpointFunction } from '../../lib/constructs/endpoint-function.js';
import { GatewayStack, type GatewayStackProps } from '../../lib/gateway-stack.js';
import { routes as manifest, type RouteSpec } from '../../lib/routes.js';

export const FIXTURE_ENTRY = 'test/infra/fixtures/handler.ts';
export const REGION = 'eu-west-1';
/** The id build() gives the stack, hence its name. */
export const STACK_NAME = 'Gateway';
/** Written out independently of lib/: where callers' own provider keys live, as a flattened ARN pattern. */
export const PROVIDER_KEY_PREFIX = `${STACK_NAME}/provider-keys/`;
/** The partition of REGION: cdk.json's `enablePartitionLiterals` writes it out where the region is known. */
export const PARTITION = 'aws';
export const PROVIDER_KEY_SECRETS_ARN = `arn:${PARTITION}:secretsmanager:${REGION}:<AWS::AccountId>:secret:${PROVIDER_KEY_PREFIX}*`;
/** Where accounts' webhook signing secrets live, written out the same way. */
export const WEBHOOK_SECRET_PREFIX = `${STACK_NAME}/webhook-secrets/`;
export const WEBHOOK_SECRETS_ARN = `arn:${PARTITION}:secretsmanager:${REGION}:<AWS::AccountId>:secret:${WEBHOOK_SECRET_PREFIX}*`;
/** What `bedrock:invoke` may call: foundation models in any region, and this region's inference profiles. */
export const BEDROCK_MODELS_ARN = `arn:${PARTITION}:bedrock:*::foundation-model/*`;
export const BEDROCK_PROFILES_ARN = `arn:${PARTITION}:bedrock:${REGION}:<AWS::AccountId>:inference-profile/*`;
export const BEDROCK_INVOKE_ACTIONS = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];

/**
 * The manifest with every entry pointed at the fixture handler: these tests inspect the
 * template, not the bundles, and must not depend on handler files being present.
 */
export const manifestRoutes: readonly RouteSpec[] = manifest.map((route) => ({ ...route, entry: FIXTURE_ENTRY }));

export function syntheticRoute(overrides: Partial<RouteSpec> & Pick<RouteSpec, 'id' | 'path'>): RouteSpec {
  return {
    method: 'POST',
    entry: FIXTURE_ENTRY,
    auth: ['secretKey'],
    rateLimited: true,
    streaming: false,
    // Buffered: within API Gateway's 29 s with the margin the stack insists on.
    timeoutSeconds: 20,
    memoryMb: 512,
    errorStyle: 'openai',
    grants: ['identity:read'],
    ...overrides,
  };
}

export interface Built {
  readonly app: App;
  readonly stack: GatewayStack;
  readonly template: Template;
}

export interface BuildOptions {
  /** Bundle with esbuild for real; off by default for speed. */
  readonly bundle?: boolean;
  readonly outdir?: string;
  /** Runs before synthesis, e.g. to add a deliberately non-compliant resource. */
  readonly mutate?: (stack: GatewayStack) => void;
  /**
   * Keep the warning of a stack without `alarmEmail` in the validation report, which prints it
   * on every synthesis; only a test of that warning wants it. @default false
   */
  readonly keepSubscriberWarning?: boolean;
}

/** cdk.json's feature flags (`@aws-cdk/...` context keys), which `cdk synth` and `cdk deploy` apply. */
export const CDK_JSON_FEATURE_FLAGS: Readonly<Record<string, unknown>> = Object.fromEntries(
  Object.entries(
    (
      JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
        context: Record<string, unknown>;
      }
    ).context,
  ).filter(([key]) => key.startsWith('@aws-cdk')),
);

/** Builds the stack as bin/gateway.ts does under cdk.json, cdk-nag included, and synthesizes it. */
/**
 * Stacks already built in this jest file, by their props: a synthesis takes seconds, and many
 * cases read the same stack. Only plain-data props are kept (a construct or function in them,
 * or a `mutate`, `outdir` or `bundle` option, builds anew); cases only read what they get.
 */
const builtStacks = new Map<string, Built>();

export function build(props: GatewayStackProps = {}, options: BuildOptions = {}): Built {
  const key = plainKey(props, options);
  const kept = key === undefined ? undefined : builtStacks.get(key);
  if (kept) return kept;
  const built = buildAnew(props, options);
  if (key !== undefined) builtStacks.set(key, built);
  return built;
}

function plainKey(props: GatewayStackProps, options: BuildOptions): string | undefined {
  if (options.mutate || options.outdir || options.bundle) return undefined;
  let plain = true;
  // The manifest's routes are the default: a stack given them is the stack given nothing. Keys
  // in one order, so that props written in another order find the same stack.
  const { routes, ...rest } = props;
  const given = routes === undefined || routes === manifestRoutes ? rest : props;
  const sorted = Object.fromEntries(Object.entries(given).sort(([a], [b]) => a.localeCompare(b)));
  const key = JSON.stringify([sorted, options.keepSubscriberWarning ?? false], (_name, value: unknown) => {
    if (typeof value === 'function' || (typeof value === 'object' && value !== null && 'node' in value)) plain = false;
    return value;
  });
  return plain ? key : undefined;
}

function buildAnew(props: GatewayStackProps, options: BuildOptions): Built {
  const app = new App({
    context: { ...CDK_JSON_FEATURE_FLAGS, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
    outdir: options.outdir,
    // aws-cdk-lib's own template checks (a WASM build of CloudFormation's rules) would take a
    // third of these files' time, once per stack, and only warn: the templates `npx cdk synth`
    // writes are checked by it there, and by cfn-lint (docs/deployment.md).
    builtinCloudFormationValidation: false,
  });
  const stack = new GatewayStack(app, STACK_NAME, {
    env: { region: REGION },
    routes: manifestRoutes,
    ...props,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  if (!options.keepSubscriberWarning && props.alarmEmail === undefined)
    Validations.of(app).acknowledge({
      id: 'Annotation::gateway:alarm-topic-without-subscriber',
      reason: 'Test stacks deploy nowhere: no one is there to be notified.',
    });
  options.mutate?.(stack);
  return { app, stack, template: Template.fromStack(stack) };
}

export function endpointOf(stack: GatewayStack, routeId: string): EndpointFunction {
  const endpoint = stack.endpoints.get(routeId);
  if (!endpoint) throw new Error(`no endpoint for route ${routeId}`);
  return endpoint;
}

export function functionLogicalId(stack: GatewayStack, routeId: string): string {
  return logicalIdOf(endpointOf(stack, routeId).fn);
}

export function roleLogicalId(stack: GatewayStack, routeId: string): string {
  return logicalIdOf(endpointOf(stack, routeId).role);
}

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;

/** Every statement that applies to a role: its inline policies plus attached AWS::IAM::Policy resources. */
export function roleStatements(template: Template, roleId: string): Statement[] {
  const resources = template.toJSON().Resources as Resources;
  const role = resources[roleId];
  if (!role) throw new Error(`no role ${roleId}`);
  const inline = (role.Properties?.Policies ?? []).flatMap(
    (policy: { PolicyDocument: { Statement: Statement[] } }) => policy.PolicyDocument.Statement,
  );
  const attached = Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => (policy.Properties?.Roles ?? []).some((ref: { Ref?: string }) => ref.Ref === roleId))
    .flatMap((policy) => policy.Properties!.PolicyDocument.Statement as Statement[]);
  return [...inline, ...attached];
}

export function actionsOf(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

export function resourcesOf(statement: Statement): unknown[] {
  return Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
}

/** True when a resource value (a string or an intrinsic) refers to the given logical id. */
export function refersTo(resource: unknown, logicalId: string): boolean {
  return JSON.stringify(resource).includes(`"${logicalId}"`);
}

/**
 * A resource value as one string, `Ref`s written `<Name>` and joins joined (the way cdk-nag names
 * resources in findings); anything else stays JSON.
 */
export function flatten(resource: unknown): string {
  if (typeof resource === 'string') return resource;
  if (resource && typeof resource === 'object') {
    const object = resource as Record<string, unknown>;
    if (typeof object['Ref'] === 'string') return `<${object['Ref']}>`;
    if (Array.isArray(object['Fn::Join'])) {
      const [delimiter, items] = object['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
  }
  return JSON.stringify(resource);
}

/** Every statement that mentions the logical id among its resources. */
export function statementsOn(statements: Statement[], logicalId: string): Statement[] {
  return statements.filter((statement) => resourcesOf(statement).some((resource) => refersTo(resource, logicalId)));
}

/** Logical id of a construct's CloudFormation resource (its default child, or itself). */
export function logicalIdOf(construct: IConstruct): string {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(construct).getLogicalId(element);
}

type ApiResources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** Full path of every API Gateway resource, rebuilt from the PathPart / ParentId chain. */
function resourcePaths(template: Template): Map<string, string> {
  const resources = template.findResources('AWS::ApiGateway::Resource') as ApiResources;
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const { ParentId, PathPart } = resources[id]!.Properties;
    const parent = ParentId.Ref ? pathOf(ParentId.Ref) : '';
    const path = `${parent}/${PathPart}`;
    paths.set(id, path);
    return path;
  };
  Object.keys(resources).forEach(pathOf);
  return paths;
}

/** Every API Gateway method with its HTTP method and full path. */
export function apiMethods(
  template: Template,
): Array<{ id: string; method: string; path: string; props: Record<string, any> }> {
  const paths = resourcePaths(template);
  return Object.entries(template.findResources('AWS::ApiGateway::Method') as ApiResources).map(([id, resource]) => ({
    id,
    method: resource.Properties.HttpMethod,
    path: resource.Properties.ResourceId.Ref ? paths.get(resource.Properties.ResourceId.Ref)! : '/',
    props: resource.Properties,
  }));
}
