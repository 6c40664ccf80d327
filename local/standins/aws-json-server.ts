/**
 * Shared plumbing for local stand-ins of AWS services that speak the JSON 1.1 protocol
 * (Secrets Manager, Cognito): the unmodified AWS SDK v3 clients talk to them once their
 * endpoint is overridden, so production code needs no local branches.
 *
 * Every request must carry a valid AWS Signature Version 4 made with the stand-in's
 * credentials, as AWS demands (signature-check.ts): loopback is open to every process on the
 * machine, and Secrets Manager holds the admin token. Only the operations AWS itself serves
 * unsigned (Cognito's sign-in flow) are served unsigned.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { signedCaller, type StandInCredentials } from './signature-check.js';
import { accessDenied, type TenantSession } from './tenant-sessions.mjs';
import { withLoopbackKeepAlive } from '../loopback-keep-alive.mjs';

/** An error the SDK turns into a named exception (`err.name === type`). */
export class AwsJsonError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export type AwsJsonInput = Record<string, unknown>;
export type AwsJsonOperation = (input: AwsJsonInput) => unknown;
/**
 * What a tenant session may do with an operation: throws AccessDeniedException where its policy
 * does not allow the call (lib/tenant-access-policy.ts). An operation without one is refused
 * to every tenant session, as the tenant-access role allows nothing else.
 */
export type TenantCheck = (input: AwsJsonInput, tenant: TenantSession) => void;

export interface AwsJsonServerOptions {
  /** The part of `X-Amz-Target` before the dot, e.g. `secretsmanager`. */
  readonly targetPrefix: string;
  readonly operations: Readonly<Record<string, AwsJsonOperation>>;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** The service's JSON protocol version (Step Functions speaks 1.0). @default '1.1' */
  readonly jsonVersion?: '1.0' | '1.1';
  /**
   * What requests must be signed with. @default AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY of
   * this process: what the AWS SDK clients beside the stand-in sign with.
   */
  readonly credentials?: StandInCredentials;
  /** Operations a tenant session may call, and on what. @default {} (none) */
  readonly tenantAccess?: Readonly<Record<string, TenantCheck>>;
  /**
   * The stand-in's own control API for tests, as the simulators and the embedded DynamoDB have
   * one: `POST /__local/<name>?…` runs `controls[name]` with the query and answers its result as
   * JSON. Not AWS's: unsigned, and only on loopback. @default {} (none)
   */
  readonly controls?: Readonly<Record<string, (query: URLSearchParams) => unknown>>;
}

export interface AwsJsonServer {
  /** Base URL to put in `AWS_ENDPOINT_URL_<SERVICE>` or a client's `endpoint`. */
  readonly url: string;
  close(): Promise<void>;
}

// The largest real payload is a 64 KiB secret; anything far beyond that is a client bug.
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Operations AWS serves without a signature (its models mark them `smithy.api#noAuth`; the SDK
 * sends them unsigned): a user's own token or password is their credential.
 */
const UNSIGNED_OPERATIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  AWSCognitoIdentityProviderService: new Set([
    'AssociateSoftwareToken',
    'ChangePassword',
    'CompleteWebAuthnRegistration',
    'ConfirmDevice',
    'ConfirmForgotPassword',
    'ConfirmSignUp',
    'DeleteUser',
    'DeleteUserAttributes',
    'DeleteWebAuthnCredential',
    'ForgetDevice',
    'ForgotPassword',
    'GetDevice',
    'GetTokensFromRefreshToken',
    'GetUser',
    'GetUserAttributeVerificationCode',
    'GetUserAuthFactors',
    'GlobalSignOut',
    'InitiateAuth',
    'ListDevices',
    'ListUserSessions',
    'ListWebAuthnCredentials',
    'ResendConfirmationCode',
    'RespondToAuthChallenge',
    'RevokeToken',
    'RevokeUserSession',
    'SetUserMFAPreference',
    'SetUserSettings',
    'SignUp',
    'StartWebAuthnRegistration',
    'UpdateAuthEventFeedback',
    'UpdateDeviceStatus',
    'UpdateUserAttributes',
    'VerifySoftwareToken',
    'VerifyUserAttribute',
  ]),
};

/** The credentials the AWS SDK would sign with in this process, from its environment. */
export function environmentCredentials(env: NodeJS.ProcessEnv = process.env): StandInCredentials {
  const accessKeyId = env['AWS_ACCESS_KEY_ID'];
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
  if (!accessKeyId || !secretAccessKey)
    throw new Error(
      'a local AWS stand-in checks signatures: pass its credentials, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
  return { accessKeyId, secretAccessKey };
}

export async function startAwsJsonServer(options: AwsJsonServerOptions): Promise<AwsJsonServer> {
  const contentType = `application/x-amz-json-${options.jsonVersion ?? '1.1'}`;
  const credentials = options.credentials ?? environmentCredentials();
  const server = createServer((req, res) => {
    if (req.url?.startsWith(CONTROL_PREFIX)) {
      control(options, req, res);
      return;
    }
    handle(options, credentials, contentType, req, res).catch((err: unknown) => {
      const failure = err instanceof AwsJsonError ? err : new AwsJsonError('InternalFailure', String(err), 500);
      send(res, contentType, failure.status, { __type: failure.type, message: failure.message }, failure.type);
    });
  });
  return listenOnLoopback(server, options.port);
}

const CONTROL_PREFIX = '/__local/';

function control(options: AwsJsonServerOptions, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const name = url.pathname.slice(CONTROL_PREFIX.length);
  const run = options.controls && Object.hasOwn(options.controls, name) ? options.controls[name] : undefined;
  const answer = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (!run) return answer(404, { error: `no control ${JSON.stringify(name)}` });
  if (req.method !== 'POST') return answer(405, { error: 'controls take POST' });
  try {
    answer(200, run(url.searchParams) ?? {});
  } catch (err) {
    answer(400, { error: err instanceof Error ? err.message : String(err) });
  }
}

async function handle(
  options: AwsJsonServerOptions,
  credentials: StandInCredentials,
  contentType: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method !== 'POST') throw new AwsJsonError('UnknownOperationException', `method ${req.method} not supported`);
  const target = String(req.headers['x-amz-target'] ?? '');
  const dot = target.lastIndexOf('.');
  const operationName = target.slice(dot + 1);
  const ownTarget = dot >= 0 && target.slice(0, dot) === options.targetPrefix;
  const body = await readBody(req);
  // Before the operation is looked up, as AWS does: an unsigned caller learns nothing more.
  let tenant: TenantSession | undefined;
  if (!(ownTarget && UNSIGNED_OPERATIONS[options.targetPrefix]?.has(operationName))) {
    const caller = await signedCaller(
      { method: req.method, url: req.url ?? '/', headers: req.headers, body },
      credentials,
      Date.now(),
    );
    if ('type' in caller) throw new AwsJsonError(caller.type, caller.message);
    tenant = caller.tenant;
  }
  const operation = Object.hasOwn(options.operations, operationName) ? options.operations[operationName] : undefined;
  if (!ownTarget || !operation) {
    throw new AwsJsonError('UnknownOperationException', `unknown operation ${JSON.stringify(target)}`);
  }
  const input = parseBody(body.toString('utf8'));
  if (tenant) {
    const check = options.tenantAccess?.[operationName];
    const action = `${options.targetPrefix}:${operationName}`;
    if (!check) {
      const refusal = accessDenied(tenant, action, '*');
      throw new AwsJsonError(refusal.type, refusal.message);
    }
    check(input, tenant);
  }
  const output = await operation(input);
  send(res, contentType, 200, output ?? {});
}

function parseBody(raw: string): AwsJsonInput {
  let parsed: unknown;
  try {
    parsed = raw === '' ? {} : JSON.parse(raw);
  } catch {
    throw new AwsJsonError('SerializationException', 'request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AwsJsonError('SerializationException', 'request body must be a JSON object');
  }
  return parsed as AwsJsonInput;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new AwsJsonError('SerializationException', 'request body too large', 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, contentType: string, status: number, body: unknown, errorType?: string): void {
  if (res.headersSent) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(payload),
    'x-amzn-requestid': randomBytes(16).toString('hex'),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(payload);
}

// ---- input helpers: the SDK validates little client-side, so the stand-ins check shapes ----

export function requireString(input: AwsJsonInput, field: string, errorType = 'InvalidParameterException'): string {
  const value = input[field];
  if (typeof value !== 'string' || value === '') throw new AwsJsonError(errorType, `${field} is required`);
  return value;
}

export function optionalString(
  input: AwsJsonInput,
  field: string,
  errorType = 'InvalidParameterException',
): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new AwsJsonError(errorType, `${field} must be a string`);
  return value;
}

/** AWS JSON timestamps travel as epoch seconds. */
export function epochSeconds(ms: number): number {
  return ms / 1000;
}

// ---- persisted state: stand-ins keep their data across restarts of the local runtime ----

export function loadJsonState<T>(file: string, empty: () => T): T {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return empty();
    throw err;
  }
  return JSON.parse(raw) as T;
}

/**
 * Temp file + rename, so a crash mid-write leaves the previous state rather than a torn file.
 * Synchronous on purpose: every mutation is on disk before its response is sent, and writes
 * cannot interleave.
 */
export function saveJsonState(file: string, state: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, JSON.stringify(state, null, 2), { mode: 0o600 });
  renameSync(temp, file);
}

/**
 * Serves `server` on 127.0.0.1 (`port`, or any free one), keeping connections alive as AWS's
 * endpoints do; `close` also ends the connections SDK clients keep, or it would wait for them.
 */
export async function listenOnLoopback(
  server: Server,
  port = 0,
): Promise<{ readonly url: string; readonly close: () => Promise<void> }> {
  withLoopbackKeepAlive(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
