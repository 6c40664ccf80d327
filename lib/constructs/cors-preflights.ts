import { Duration } from 'aws-cdk-lib';
import { AuthorizationType, MockIntegration, type IResource } from 'aws-cdk-lib/aws-apigateway';
import { CORS_ALLOW_HEADERS, CORS_MAX_AGE_SECONDS, DEPLOYMENT_CORS_METHODS } from '../cors-preflight.js';
import type { HttpMethod } from '../routes.js';

/** Which preflight each resource gets. */
export interface PreflightPolicy {
  /** The deployment's own browser origins (cookie-authenticated, so credentials are allowed). */
  readonly corsOrigins: readonly string[];
  /** Resource paths whose routes accept publishable keys, with the methods their preflight admits. */
  readonly publishableKeyResources: ReadonlyMap<string, readonly HttpMethod[]>;
}

const PREFLIGHT_STATUS = '204';
/** The origin is a scheme and host here, embedded in a template: nothing that could end a VTL string. */
const TEMPLATE_SAFE_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^\s"'$#\\]+$/i;

/**
 * Gives the resource its one OPTIONS method, if it has none yet. A resource with publishable-key
 * routes answers any origin; the others answer the deployment's origins, or have no preflight
 * when there are none.
 */
export function addPreflight(resource: IResource, policy: PreflightPolicy): void {
  if (resource.node.tryFindChild('OPTIONS')) return;
  const publishableMethods = policy.publishableKeyResources.get(resource.path);
  if (publishableMethods) {
    addAnyOriginPreflight(resource, publishableMethods, policy.corsOrigins);
  } else if (policy.corsOrigins.length > 0) {
    resource.addCorsPreflight({
      allowOrigins: [...policy.corsOrigins],
      allowHeaders: [...CORS_ALLOW_HEADERS],
      allowMethods: [...DEPLOYMENT_CORS_METHODS],
      allowCredentials: true,
      maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
    });
  }
}

/**
 * A preflight carries no credentials, so it cannot know which `pk_` key will follow, nor that
 * key's origins: it admits any origin, and the real request is refused (403, without
 * Allow-Origin) when the key does not list it. Credentials are allowed only to the deployment's
 * own origins; publishable keys need none (no cookies).
 */
function addAnyOriginPreflight(resource: IResource, methods: readonly HttpMethod[], corsOrigins: readonly string[]) {
  const fixedHeaders: Record<string, string> = {
    'Access-Control-Allow-Methods': `'${methods.join(',')}'`,
    'Access-Control-Allow-Headers': `'${CORS_ALLOW_HEADERS.join(',')}'`,
    'Access-Control-Max-Age': `'${CORS_MAX_AGE_SECONDS}'`,
    Vary: "'Origin'",
  };
  const templateHeaders = ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials'];
  const integration = new MockIntegration({
    requestTemplates: { 'application/json': '{ "statusCode": 200 }' },
    integrationResponses: [
      {
        statusCode: PREFLIGHT_STATUS,
        responseParameters: Object.fromEntries(
          Object.entries(fixedHeaders).map(([name, value]) => [`method.response.header.${name}`, value]),
        ),
        responseTemplates: { 'application/json': echoOriginTemplate(corsOrigins) },
      },
    ],
  });
  resource.addMethod('OPTIONS', integration, {
    authorizationType: AuthorizationType.NONE,
    methodResponses: [
      {
        statusCode: PREFLIGHT_STATUS,
        responseParameters: Object.fromEntries(
          [...Object.keys(fixedHeaders), ...templateHeaders].map((name) => [`method.response.header.${name}`, true]),
        ),
      },
    ],
  });
}

/**
 * Integration response parameters cannot read the request, so the template echoes the Origin
 * through `$context.responseOverride` (as CDK's own multi-origin preflight does); no Origin, no
 * Allow-Origin. Each header is overridden at most once: API Gateway answers 5xx otherwise.
 */
function echoOriginTemplate(corsOrigins: readonly string[]): string {
  const lines = [
    '#set($origin = $input.params().header.get("Origin"))',
    '#if("$!origin" == "")',
    '  #set($origin = $input.params().header.get("origin"))',
    '#end',
    '#if("$!origin" != "")',
    '  #set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
  ];
  if (corsOrigins.length > 0) {
    const own = corsOrigins.map((origin) => `$origin == "${templateSafe(origin)}"`).join(' || ');
    lines.push(`  #if(${own})`, '    #set($context.responseOverride.header.Access-Control-Allow-Credentials = "true")');
    lines.push('  #end');
  }
  lines.push('#end');
  return lines.join('\n');
}

function templateSafe(origin: string): string {
  if (!TEMPLATE_SAFE_ORIGIN.test(origin))
    throw new Error(`CORS origin "${origin}" is not a plain scheme://host[:port]`);
  return origin;
}
