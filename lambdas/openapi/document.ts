import { routes as manifest, type RouteSpec } from '../../lib/routes.js';
import { EVENT_SCHEMAS } from './event-schemas.js';
import {
  answerSchema,
  DEPRECATION_HEADERS,
  ERROR_MEANINGS,
  ERROR_SCHEMA_OF,
  ERROR_SCHEMAS,
  RATE_HEADERS,
  RESPONSE_HEADERS,
  SECURITY_OF,
  SECURITY_SCHEMES,
} from './interface-components.js';
import { toJsonSchema2020, type JsonSchema } from './json-schema-2020.js';
import { RESOURCE_SCHEMAS } from './resource-schemas.js';
import { routeDocs as registry, TAGS, type RouteDoc } from './route-docs.js';
import { ref } from './schema-ref.js';

/**
 * The OpenAPI 3.1 document of the whole interface, built from the route manifest (paths,
 * methods, security, rate headers, error shapes) and the route docs registry (words, request
 * schemas as the handlers validate with them, parameters, answers). Pure: no HTTP.
 */

export const INTERFACE_VERSION = '2.1.0';

type OpenApiObject = Record<string, unknown>;

export function buildOpenApiDocument(
  routes: readonly RouteSpec[] = manifest,
  docs: Readonly<Record<string, RouteDoc>> = registry,
): OpenApiObject {
  const requestSchemas = new RequestSchemas();
  const paths: Record<string, Record<string, OpenApiObject>> = {};
  for (const route of routes) {
    const doc = docs[route.id] ?? undocumented(route);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, doc, requestSchemas);
  }
  const tags = [...new Set(routes.map((route) => (docs[route.id] ?? undocumented(route)).tag))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'AI gateway',
      version: INTERFACE_VERSION,
      description:
        'One authenticated, OpenAI-compatible API over many text models, chat modes, web search, themes, ' +
        'speech, music, video and fashion generation. ' +
        'Gateway and model routes answer errors in the OpenAI shape, the rest in the `success: false` envelope.',
    },
    servers: [
      {
        url: '{baseUrl}',
        description: 'The stack’s ApiUrl output without its trailing slash; locally runtime.json `baseUrl`',
        variables: { baseUrl: { default: 'http://127.0.0.1:8787' } },
      },
    ],
    tags: tags.map((name) => ({ name, description: TAGS[name] ?? 'Not yet documented' })),
    paths,
    components: {
      schemas: { ...RESOURCE_SCHEMAS, ...EVENT_SCHEMAS, ...ERROR_SCHEMAS },
      requestBodies: requestSchemas.named,
      headers: RESPONSE_HEADERS,
      securitySchemes: usedSecuritySchemes(routes),
    },
  };
}

/** A manifest route nobody documented yet still appears, from what the manifest knows. */
function undocumented(route: RouteSpec): RouteDoc {
  return {
    tag: 'Undocumented',
    summary: `${route.method} ${route.path} (not yet documented)`,
    success: { status: 200, description: 'Not yet documented' },
  };
}

function operation(route: RouteSpec, doc: RouteDoc, requestSchemas: RequestSchemas): OpenApiObject {
  const parameters = [...pathParameters(route, doc), ...(doc.parameters ?? [])];
  return {
    operationId: route.id,
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(doc.deprecated ? { deprecated: true } : {}),
    security: route.auth.flatMap((scheme) => SECURITY_OF[scheme].map((name) => ({ [name]: [] }))),
    ...(parameters.length ? { parameters } : {}),
    ...(doc.request ? { requestBody: requestSchemas.body(doc.request.name, doc.request.schema) } : {}),
    responses: {
      [doc.success.status]: successResponse(route, doc),
      ...errorResponses(route, doc),
    },
  };
}

function pathParameters(route: RouteSpec, doc: RouteDoc): OpenApiObject[] {
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: doc.pathParameters?.[name!] ?? name,
    schema: { type: 'string' },
  }));
}

function successResponse(route: RouteSpec, doc: RouteDoc): OpenApiObject {
  const { success } = doc;
  const content: Record<string, OpenApiObject> = {};
  if (success.json) content['application/json'] = { schema: answerSchema(route, success.json) };
  if (success.events) content['text/event-stream'] = { schema: success.events };
  for (const type of success.binary ?? []) content[type] = { schema: { type: 'string', contentMediaType: type } };
  return {
    description: success.description,
    headers: headerRefs([...standardHeaders(route, doc, success.status), ...(success.headers ?? [])]),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

/**
 * The errors the manifest implies (bad input, credentials, path ids, size, throttling), then
 * the route's own, each in the route's error shape.
 */
function errorResponses(route: RouteSpec, doc: RouteDoc): Record<string, OpenApiObject> {
  const takesInput = Boolean(doc.request || doc.parameters?.length);
  const implied: [number, boolean][] = [
    [400, takesInput],
    [401, route.auth.length > 0],
    [403, route.auth.length > 0],
    [404, route.path.includes('{')],
    [413, Boolean(doc.request)],
  ];
  const own = route.perKeyLimit;
  const throttled = own
    ? `the route’s own limit of ${own.requests} requests per ${own.windowSeconds} s per key`
    : route.rateLimited
      ? 'the key’s (or session’s) requests per minute'
      : 'the deployment is throttled by API Gateway';
  const statuses: Record<number, string> = {
    ...Object.fromEntries(implied.filter(([, applies]) => applies).map(([status]) => [status, ERROR_MEANINGS[status]])),
    429: `${ERROR_MEANINGS[429]}: ${throttled}`,
    ...doc.errors,
  };
  return Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [
      status,
      {
        description,
        headers: headerRefs([
          ...standardHeaders(route, doc, Number(status)),
          ...(status === '429' ? ['Retry-After'] : []),
        ]),
        content: { 'application/json': { schema: answerSchema(route, ref(ERROR_SCHEMA_OF[route.errorStyle])) } },
      },
    ]),
  );
}

/**
 * Every answer carries X-Request-ID; a rate-limited route's answers after authentication carry
 * the rate headers; a deprecated route's answers say so.
 */
function standardHeaders(route: RouteSpec, doc: RouteDoc, status: number): string[] {
  const authenticated = status !== 401 && status !== 403;
  return [
    'X-Request-ID',
    ...(route.rateLimited && authenticated ? RATE_HEADERS : []),
    ...(doc.deprecated ? DEPRECATION_HEADERS : []),
  ];
}

function headerRefs(names: readonly string[]): OpenApiObject {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function usedSecuritySchemes(routes: readonly RouteSpec[]): Record<string, JsonSchema> {
  const used = new Set(routes.flatMap((route) => route.auth.flatMap((scheme) => SECURITY_OF[scheme])));
  return Object.fromEntries(Object.entries(SECURITY_SCHEMES).filter(([name]) => used.has(name)));
}

/**
 * Request bodies as named components.requestBodies: one name, one schema object (two routes may
 * share both). Not components.schemas: a generator reads a property with a `default` there as
 * one every value has (openapi-typescript types it required, right for answers), so a typed
 * client would have to send `temperature` or a video `model`; in a request body a defaulted
 * property stays optional, as it is.
 */
class RequestSchemas {
  readonly named: Record<string, OpenApiObject> = {};
  private readonly sources = new Map<string, JsonSchema>();

  body(name: string, schema: JsonSchema): OpenApiObject {
    const known = this.sources.get(name);
    if (known && known !== schema) throw new Error(`two request schemas are both named ${name}`);
    if (!known) {
      this.sources.set(name, schema);
      const content = { 'application/json': { schema: toJsonSchema2020(schema) } };
      this.named[name] = { required: requiresBody(schema), content };
    }
    return { $ref: `#/components/requestBodies/${name}` };
  }
}

/** Whether a body must be sent: its schema (each of its alternatives) requires a field. */
const requiresBody = (schema: JsonSchema): boolean =>
  Array.isArray(schema['oneOf'])
    ? schema['oneOf'].every((form) => requiresBody(form as JsonSchema))
    : Array.isArray(schema['required']) && schema['required'].length > 0;
