import { BUDGET_ERROR_ANSWERS } from '../usage/budget-errors.js';
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
import { routeDocs as registry, TAGS, type ErrorTable, type RouteDoc, type SuccessDoc } from './route-docs.js';
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
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation(route, doc, requestSchemas);
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
    servers: [{ url: '/', description: SERVER_DESCRIPTION }],
    tags: tags.map((name) => ({ name, description: TAGS[name] ?? 'Not yet documented' })),
    paths,
    webhooks: WEBHOOKS,
    components: {
      schemas: { ...RESOURCE_SCHEMAS, ...EVENT_SCHEMAS, ...ERROR_SCHEMAS },
      requestBodies: requestSchemas.named,
      headers: RESPONSE_HEADERS,
      securitySchemes: usedSecuritySchemes(routes),
    },
  };
}

const SERVER_DESCRIPTION = 'This deployment, where this document was served from';

/** Standard Webhooks' headers, as every event the gateway posts carries them (docs/interface.md §6.4). */
const WEBHOOK_HEADERS = [
  ['webhook-id', 'The event’s id, the same on every retry: drop duplicates by it'],
  ['webhook-timestamp', 'Unix seconds of this attempt'],
  [
    'webhook-signature',
    '`v1,<base64>` HMAC-SHA256 signatures of `<webhook-id>.<webhook-timestamp>.<body>`, space-separated',
  ],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

/** What the gateway itself POSTs to a caller's URL (OpenAPI 3.1 `webhooks`). */
const WEBHOOKS = {
  'budget.threshold_crossed': {
    post: {
      operationId: 'budgetThresholdCrossed',
      summary: 'A budget crossed 50, 80 or 100% of its limit',
      description:
        'Posted to the account’s budget `webhookUrl` (`PATCH /api/v1/budget`, docs/interface.md §2.5, §6.4) for the ' +
        'account’s budget and each of its keys’ budgets: once per budget, period and threshold. An answer other than ' +
        '2xx within 10 s is retried with backoff, six attempts at most.',
      security: [],
      parameters: WEBHOOK_HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema: ref('BudgetThresholdEvent') } } },
      responses: {
        '200': { description: 'Any 2xx acknowledges the event' },
        '400': { description: 'Any other answer (or none) is retried' },
      },
    },
  },
};

/**
 * The document as served from `baseUrl` (scheme, host and any stage prefix, no trailing
 * slash): its one server is that, so a client generated from it calls the deployment it came
 * from, whichever of its URLs (the API's stage URL, a custom domain, the local runtime) that was.
 * Without one (a request that named no usable host) the server stays relative: `/`.
 */
export function documentServedAt(document: OpenApiObject, baseUrl: string): OpenApiObject {
  return baseUrl ? { ...document, servers: [{ url: baseUrl, description: SERVER_DESCRIPTION }] } : document;
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
      [doc.success.status]: successResponse(route, doc, doc.success),
      ...Object.fromEntries(
        (doc.alsoSucceeds ?? []).map((other) => [other.status, successResponse(route, doc, other)]),
      ),
      ...errorResponses(route, doc),
      default: errorResponse(route, doc, 'default', UNEXPECTED_FAILURE),
    },
  };
}

/** What any route may answer beyond its own statuses: the response writer's last resorts. */
const UNEXPECTED_FAILURE =
  'Any other failure: 500 `INTERNAL_ERROR` (logged under the request id), or 503 `SERVICE_UNAVAILABLE` ' +
  '(the gateway’s store is busy, or an upstream did not answer in time; retry shortly)';

/** OpenAPI has no greedy parameter: API Gateway's `{name+}` is written `{name}` (its value may hold `/`). */
export const openApiPath = (path: string): string => path.replace(/\{(\w+)\+\}/g, '{$1}');

function pathParameters(route: RouteSpec, doc: RouteDoc): OpenApiObject[] {
  return [...openApiPath(route.path).matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: doc.pathParameters?.[name!] ?? name,
    schema: { type: 'string' },
  }));
}

function successResponse(route: RouteSpec, doc: RouteDoc, success: SuccessDoc): OpenApiObject {
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
 * The errors the manifest implies (bad input, credentials, path ids, size, throttling), those
 * the route's domain tables answer, then the route's own words, each in the route's error shape.
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
  };
  // A route that reserves against budgets may refuse a call its key's budget cannot hold.
  const raises = [...(doc.raises ?? []), ...(route.grants.includes('budgets:reserve') ? [BUDGET_ERROR_ANSWERS] : [])];
  for (const [status, codes] of raisedCodes(raises)) {
    const meaning = statuses[status] ?? ERROR_MEANINGS[status];
    const unnamed = codes
      .filter((code) => !meaning?.includes(`\`${code}\``))
      .map((code) => `\`${code}\``)
      .join(', ');
    statuses[status] = !meaning ? unnamed : unnamed ? `${meaning}; also ${unnamed}` : meaning;
  }
  Object.assign(statuses, doc.errors);
  return Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [status, errorResponse(route, doc, status, description)]),
  );
}

/** Each status the tables answer, with its codes in the tables' order. */
function raisedCodes(tables: readonly ErrorTable[]): Map<number, string[]> {
  const codes = new Map<number, string[]>();
  for (const answer of tables.flatMap((table) => Object.values(table))) {
    const known = codes.get(answer.status) ?? [];
    if (!known.includes(answer.code)) codes.set(answer.status, [...known, answer.code]);
  }
  return codes;
}

/** Statuses whose answers may say when to try again: a rate limit, a budget's reset. */
const RETRY_AFTER_STATUSES = new Set(['402', '429']);

function errorResponse(route: RouteSpec, doc: RouteDoc, status: string, description: string): OpenApiObject {
  const headers =
    status === 'default'
      ? ['X-Request-ID', ...(doc.deprecated ? DEPRECATION_HEADERS : [])]
      : [...standardHeaders(route, doc, Number(status)), ...(RETRY_AFTER_STATUSES.has(status) ? ['Retry-After'] : [])];
  return {
    description,
    headers: headerRefs(headers),
    content: { 'application/json': { schema: answerSchema(route, ref(ERROR_SCHEMA_OF[route.errorStyle])) } },
  };
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
 * share both). Not components.schemas: generators type a property with a `default` as always
 * present in a schema (what an answer guarantees), but as optional in a request body, which is
 * what it is to the caller (openapi-typescript's `defaultNonNullable`).
 */
class RequestSchemas {
  readonly named: Record<string, OpenApiObject> = {};
  private readonly sources = new Map<string, JsonSchema>();

  body(name: string, schema: JsonSchema): OpenApiObject {
    const known = this.sources.get(name);
    if (known && known !== schema) throw new Error(`two request schemas are both named ${name}`);
    if (!known) {
      this.sources.set(name, schema);
      this.named[name] = {
        required: requiresBody(schema),
        content: { 'application/json': { schema: toJsonSchema2020(schema) } },
      };
    }
    return { $ref: `#/components/requestBodies/${name}` };
  }
}

/** Whether a body must be sent: its schema (each of its alternatives) requires a field. */
const requiresBody = (schema: JsonSchema): boolean =>
  Array.isArray(schema['oneOf'])
    ? schema['oneOf'].every((form) => requiresBody(form as JsonSchema))
    : Array.isArray(schema['required']) && schema['required'].length > 0;
