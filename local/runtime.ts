import { mkdirSync, writeFileSync, renameSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import packageJson from '../package.json' with { type: 'json' };
import { routes } from '../lib/routes.js';
import { ensureFirstAccount, ensureSecrets, putSecret } from './bootstrap.js';
import { quietClientDisconnects } from './client-disconnect.js';
import { consoleFiles } from './console-files.js';
import { startLocalDynamoDb } from './dynamodb.js';
import { createGatewayServer } from './gateway-server.js';
import { drainOnStop } from './graceful-stop.js';
import { loadRouteHandler } from './handler-modules.js';
import { LOCAL_MODERATION_KEY_SECRET, moderationWiring, type LocalModeration } from './moderation-engine.js';
import { LOCAL_QUEUE_MAPPINGS, startLocalQueuePollers } from './queue-mappings.js';
import { concurrentInvocations } from './invocation-scope.js';
import { handlerEnvironment, LOCAL_REGION } from './runtime-config.js';
import { startLocalServices } from './services.js';
import { ensureStandInCredentials } from './standin-credentials.js';
import {
  LOCAL_JOB_STATE_MACHINE_ARN,
  LOCAL_SESSION_STATE_MACHINE_ARN,
  startLocalStepFunctions,
} from './standins/step-functions-local.js';
import { LOCAL_STREAM_MAPPINGS, startLocalStreamPollers } from './stream-mappings.js';
import { ENV } from '../lambdas/config/environment.js';
import { holdUntilStarted } from './startup-gate.js';

const HEALTH_PATH = routes.find((route) => route.id === 'health')!.path;

export interface LocalRuntimeOptions {
  /** Where everything persists (`$GATEWAY_DATA_DIR`, default `.local/`). */
  readonly dataDir: string;
  /** `$PORT`, default 8787; 0 picks a free port. */
  readonly port: number;
  readonly host?: string;
  /** Extra origins for CORS and cookie writes, besides the runtime's own. */
  readonly extraOrigins?: readonly string[];
  /** `$GATEWAY_DYNAMODB_LATENCY_MS`: each embedded DynamoDB call waits this long, as in AWS. */
  readonly dynamoDbLatencyMs?: number;
  /** `$GATEWAY_JOB_WAIT_MS`: every job poller Wait and retry pause. @default DEFAULT_LOCAL_JOB_WAIT_MS */
  readonly jobWaitMs?: number;
  /** `$GATEWAY_MODERATION`: the content moderation engine (local/moderation-engine.ts). @default 'local' */
  readonly moderation?: LocalModeration;
}

/** The contract other tooling reads from `$GATEWAY_DATA_DIR/runtime.json`. */
export interface RuntimeInfo {
  readonly baseUrl: string;
  /** The console's address (the same origin as the API, so its session cookie works). */
  readonly consoleUrl: string;
  readonly apiKey: string;
  readonly adminToken: string;
  readonly dashboard: { readonly email: string; readonly password: string };
  readonly simulators: Record<string, string>;
}

export interface LocalRuntime {
  readonly info: RuntimeInfo;
  stop(): Promise<void>;
}

/** Waits for every start; registers each one's stop, then throws the first failure if any. */
async function startedTogether<T extends readonly { stop(): Promise<void> }[]>(
  stops: (() => Promise<void>)[],
  starts: { readonly [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const settled = await Promise.allSettled(starts);
  for (const result of settled) if (result.status === 'fulfilled') stops.push(() => result.value.stop());
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const credentials = ensureStandInCredentials(dataDir);
    // The database and the stand-ins are processes of their own: started side by side, and each
    // stopped on the way out whether or not the other came up.
    const [dynamodb, services] = await startedTogether(stops, [
      startLocalDynamoDb({
        dataDir: join(dataDir, 'dynamodb'),
        tablePrefix: 'gateway',
        latencyMs: options.dynamoDbLatencyMs,
        tenantSessions: { credentials },
      }),
      startLocalServices(dataDir, credentials),
    ]);

    const origins: string[] = [...(options.extraOrigins ?? [])];
    const server = createGatewayServer({
      routes,
      invocationScope: await concurrentInvocations(),
      loadHandler: quietClientDisconnects(loadRouteHandler),
      allowedOrigins: () => origins,
      // The console's build beside the sources (local/build-console.mjs; launch.mjs keeps it fresh).
      consoleFiles: consoleFiles(fileURLToPath(new URL('../console/dist/', import.meta.url))),
    });
    const startup = holdUntilStarted(server, HEALTH_PATH);
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((done, fail) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        fail(error.code === 'EADDRINUSE' ? new PortInUseError(host, options.port) : error),
      );
      server.listen(options.port, host, () => done());
    });
    // Runs first on a stop, before the stand-ins and the database: pending writes must land.
    stops.push(drainOnStop(server));
    server.closeIdleConnections();
    const { port } = server.address() as AddressInfo;
    const baseUrl = `http://127.0.0.1:${port}`;
    origins.push(baseUrl, `http://localhost:${port}`);

    let handlersConfigured = () => {};
    const configured = new Promise<void>((resolve) => (handlersConfigured = resolve));
    const stepFunctions = await startLocalStepFunctions(dataDir, configured, credentials, options.jobWaitMs);
    stops.push(() => stepFunctions.close());
    const moderation = moderationWiring(options.moderation ?? 'local', { ...process.env, ...services.environment });
    // The handlers' whole environment, written once before any handler runs: each reads its
    // configuration at its first call (lambdas/config/configuration.ts) and keeps it.
    Object.assign(
      process.env,
      handlerEnvironment(
        {
          dynamodb: dynamodb.endpoint,
          dynamodbStreams: dynamodb.streamsEndpoint,
          secretsManager: services.secretsManager,
          cognito: services.cognito,
          sqs: services.sqs,
          sts: services.sts,
        },
        dynamodb.tableNames,
        origins,
        packageJson.version,
        credentials,
      ),
      services.environment,
      moderation?.environment,
      {
        AWS_ENDPOINT_URL_SFN: stepFunctions.url,
        [ENV.jobStateMachineArn]: LOCAL_JOB_STATE_MACHINE_ARN,
        [ENV.sessionStateMachineArn]: LOCAL_SESSION_STATE_MACHINE_ARN,
      },
    );
    handlersConfigured();
    startup.configured();
    // Lambda's event source mappings from table streams; stopped (after the batch in flight)
    // before the gateway drains: what is written meanwhile is delivered at the next start.
    const streamPollers = await startLocalStreamPollers({
      dataDir,
      mappings: LOCAL_STREAM_MAPPINGS,
      tableNames: dynamodb.tableNames,
      streamsEndpoint: dynamodb.streamsEndpoint,
      sqsEndpoint: services.sqs,
      credentials,
    });
    stops.push(() => streamPollers.stop());
    // Lambda's mappings from SQS queues (the usage redrive); their queues are made here, before
    // any handler can send to one. Stopped like the stream pollers: a message not yet handled
    // stays in its queue for the next start.
    const queuePollers = await startLocalQueuePollers({
      mappings: LOCAL_QUEUE_MAPPINGS,
      sqsEndpoint: services.sqs,
      credentials,
    });
    stops.push(() => queuePollers.stop());
    const adminToken = await ensureSecrets(services.secretsManager, credentials);
    if (moderation) await putSecret(services.secretsManager, credentials, LOCAL_MODERATION_KEY_SECRET, moderation.key);
    const first = await ensureFirstAccount(dataDir, baseUrl, adminToken);
    const info: RuntimeInfo = {
      baseUrl,
      consoleUrl: `${baseUrl}/`,
      apiKey: first.apiKey,
      adminToken,
      dashboard: first.dashboard,
      simulators: services.simulators,
    };
    writeJson(join(dataDir, 'runtime.json'), info);
    writeJson(join(dataDir, 'local-aws.json'), {
      region: LOCAL_REGION,
      dynamodb: dynamodb.endpoint,
      dynamodbStreams: dynamodb.streamsEndpoint,
      secretsManager: services.secretsManager,
      cognito: services.cognito,
      sqs: services.sqs,
      sts: services.sts,
      stepFunctions: stepFunctions.url,
      jobStateMachineArn: LOCAL_JOB_STATE_MACHINE_ARN,
      sessionStateMachineArn: LOCAL_SESSION_STATE_MACHINE_ARN,
      tables: dynamodb.tableNames,
    });
    startup.ready();
    return { info, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The gateway's port is taken (another runtime, or any other server): `npm start` says so in one line. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`${host}:${port} is already in use`);
  }
}

/** Written whole or not at all: readers poll for these files. */
function writeJson(file: string, value: unknown): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}
