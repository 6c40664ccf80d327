import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  CORS_ALLOW_HEADERS,
  CORS_MAX_AGE_SECONDS,
  DEPLOYMENT_CORS_METHODS,
  publishableKeyMethods,
  publishableKeyResources,
} from '../lib/cors-preflight.js';
import { gatewayResponseCors } from '../lib/gateway-responses.js';
import type { RouteSpec } from '../lib/routes.js';
import type { InvocationScope } from './invocation-scope.js';
import { installLambdaStreamingGlobals, isStreamingHandler, ResponseStream } from './lambda-streaming.js';
import { LAMBDA_MAX_EVENT_BYTES, sendEventTooLarge, sendGatewayResponse } from './gateway-answers.js';
import { isApiPath, type ConsoleFiles } from './console-files.js';
import { RouteTable } from './route-table.js';
import { withLoopbackKeepAlive } from './loopback-keep-alive.mjs';

export interface GatewayServerOptions {
  readonly routes: readonly RouteSpec[];
  /** A route's handler module (it exports `handler`); loaded once, on the route's first request. */
  readonly loadHandler: (route: RouteSpec) => Promise<{ handler: unknown }>;
  /** Origins the CORS preflight admits (API Gateway's CORS settings in the cloud). */
  readonly allowedOrigins: () => readonly string[];
  /** Largest request body accepted: API Gateway's payload limit (10 MB). */
  readonly maxBodyBytes?: number;
  /** Largest event a function is invoked with: Lambda's synchronous payload limit (6 MB). */
  readonly maxEventBytes?: number;
  /** Runs each invocation in its own scope (local/invocation-scope.ts). @default none: shared */
  readonly invocationScope?: InvocationScope;
  /** Serves GET and HEAD outside /api/ (local/console-files.ts), as the cloud's distribution does. @default none */
  readonly consoleFiles?: ConsoleFiles;
}

const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded|.*\+json)|text\/)/i;

/**
 * The laptop's API Gateway: routes from the manifest, REST proxy (v1) events into the same
 * handler modules that Lambda runs, buffered or streamed responses back out.
 */
export interface GatewayServer extends Server {
  /**
   * Resolves once every handler invocation begun so far has finished, including its work after
   * the response (usage, cached answers), which Lambda would also let finish.
   */
  settled(): Promise<void>;
}

export function createGatewayServer(options: GatewayServerOptions): GatewayServer {
  installLambdaStreamingGlobals();
  const table = new RouteTable(options.routes);
  const hasPublishableKeyRoutes = publishableKeyResources(options.routes).size > 0;
  const handlers = new Map<string, Promise<unknown>>();
  const loadHandler = (route: RouteSpec) => {
    let handler = handlers.get(route.id);
    if (!handler) {
      handler = options.loadHandler(route).then((module) => module.handler);
      handlers.set(route.id, handler);
    }
    return handler;
  };

  const inFlight = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    const served = serve(req, res).catch((error: unknown) => {
      console.error('local gateway: request failed', error);
      if (!res.headersSent)
        sendJson(res, 502, { success: false, error: { code: 'BAD_GATEWAY', message: 'handler failed' } });
      else res.destroy();
    });
    inFlight.add(served);
    void served.finally(() => inFlight.delete(served));
  });
  withLoopbackKeepAlive(server);
  return Object.assign(server, {
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'OPTIONS') return preflight(req, res, url.pathname);
    if (options.consoleFiles && (method === 'GET' || method === 'HEAD') && !isApiPath(url.pathname))
      return options.consoleFiles(req, res, url.pathname);
    const cors = gatewayResponseCors(options.allowedOrigins().length > 0, hasPublishableKeyRoutes);
    const match = table.match(method, url.pathname);
    // A REST API answers an unknown path and a known path with another method alike.
    if (match === undefined || match === 'methodMismatch') {
      return sendGatewayResponse(req, res, 'MISSING_AUTHENTICATION_TOKEN', cors);
    }
    const body = await readBody(req, options.maxBodyBytes ?? API_GATEWAY_MAX_BODY_BYTES);
    if (body === undefined) {
      res.shouldKeepAlive = false; // the rest of the body is left unread
      return sendGatewayResponse(req, res, 'REQUEST_TOO_LARGE', cors);
    }
    const event = toProxyEvent(req, url, match.route, match.pathParams, body);
    const maxEventBytes = options.maxEventBytes ?? LAMBDA_MAX_EVENT_BYTES;
    if (body.length > 0 && Buffer.byteLength(JSON.stringify(event)) > maxEventBytes) {
      return sendEventTooLarge(req, res, match.route, maxEventBytes, cors);
    }
    const handler = await loadHandler(match.route);
    const context = lambdaContext(match.route);
    const scoped = options.invocationScope ?? ((_id, invoke) => invoke());
    if (isStreamingHandler(handler)) {
      await scoped(context.awsRequestId, () => handler(event, new ResponseStream(res), context));
      return;
    }
    const buffered = handler as (e: unknown, c: unknown) => Promise<APIGatewayProxyResult>;
    const result = await scoped(context.awsRequestId, () => buffered(event, context));
    res.writeHead(result.statusCode, result.headers as Record<string, string>);
    res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
  }

  /**
   * As the stack's OPTIONS methods answer: a resource with publishable-key routes admits any
   * origin (credentials only for the deployment's own), the others only the deployment's origins.
   */
  function preflight(req: IncomingMessage, res: ServerResponse, path: string): void {
    const origin = req.headers.origin;
    const ownOrigin = origin !== undefined && options.allowedOrigins().includes(origin);
    const publishableMethods = publishableKeyMethods(table.routesAt(path));
    if (!origin || (!ownOrigin && !publishableMethods)) {
      res.writeHead(204).end();
      return;
    }
    res
      .writeHead(204, {
        'Access-Control-Allow-Origin': origin,
        ...(ownOrigin ? { 'Access-Control-Allow-Credentials': 'true' } : {}),
        'Access-Control-Allow-Methods': (publishableMethods ?? DEPLOYMENT_CORS_METHODS).join(', '),
        'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS.join(', '),
        'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
        Vary: 'Origin',
      })
      .end();
  }
}

function toProxyEvent(
  req: IncomingMessage,
  url: URL,
  route: RouteSpec,
  pathParams: Record<string, string>,
  body: Buffer,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value; // API Gateway's single-value map keeps the last value
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) {
    query[key] = value;
    (multiQuery[key] ??= []).push(value);
  }
  const isText = body.length === 0 || TEXT_TYPES.test(req.headers['content-type'] ?? 'application/json');
  const requestId = randomUUID();
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: route.method,
    headers,
    multiValueHeaders,
    queryStringParameters: Object.keys(query).length ? query : null,
    multiValueQueryStringParameters: Object.keys(multiQuery).length ? multiQuery : null,
    pathParameters: Object.keys(pathParams).length ? pathParams : null,
    stageVariables: null,
    body: body.length === 0 ? null : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !isText,
    requestContext: {
      requestId,
      httpMethod: route.method,
      path: url.pathname,
      resourcePath: route.path,
      stage: 'local',
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
    } as APIGatewayProxyEvent['requestContext'],
  };
}

function lambdaContext(route: RouteSpec) {
  const deadline = Date.now() + route.timeoutSeconds * 1000;
  return {
    functionName: `local-${route.id}`,
    functionVersion: '$LATEST',
    awsRequestId: randomUUID(),
    memoryLimitInMB: String(route.memoryMb),
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

/**
 * The request's body, or undefined once it passes `limit` (the rest is left unread). Read from
 * the request's events: an async iterator over it cost tens of microseconds of CPU per request.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      resolve(undefined);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
    // Closed before its end (the client went away): what the iterator reports as a premature close.
    req.once('close', () => {
      if (!req.readableEnded) reject(new Error('Premature close'));
    });
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}
