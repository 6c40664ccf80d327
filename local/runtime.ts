import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routes } from '../lib/routes.js';
import { ensureFirstAccount, ensureSecrets } from './bootstrap.js';
import { startLocalDynamoDb } from './dynamodb.js';
import { createGatewayServer } from './gateway-server.js';
import { handlerEnvironment, LOCAL_REGION, LOCAL_USER_POOL_CLIENT_ID, LOCAL_USER_POOL_ID } from './runtime-config.js';
import { startCognitoStandIn } from './standins/cognito.js';
import { startSecretsManagerStandIn } from './standins/secrets-manager.js';
import { startSimulators } from './simulators/index.js';
import { startPromptService } from './simulators/prompt-service.js';

export interface LocalRuntimeOptions {
  /** Where everything persists (`$GATEWAY_DATA_DIR`, default `.local/`). */
  readonly dataDir: string;
  /** `$PORT`, default 8787; 0 picks a free port. */
  readonly port: number;
  readonly host?: string;
  /** Extra origins for CORS and cookie writes, besides the runtime's own. */
  readonly extraOrigins?: readonly string[];
}

/** The contract other tooling reads from `$GATEWAY_DATA_DIR/runtime.json`. */
export interface RuntimeInfo {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly adminToken: string;
  readonly dashboard: { readonly email: string; readonly password: string };
  readonly simulators: Record<string, string>;
}

export interface LocalRuntime {
  readonly info: RuntimeInfo;
  stop(): Promise<void>;
}

const ROOT_DIR = resolve(fileURLToPath(new URL('..', import.meta.url)));

export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const dynamodb = await startLocalDynamoDb({ dataDir: join(dataDir, 'dynamodb'), tablePrefix: 'gateway' });
    stops.push(() => dynamodb.stop());
    const secrets = await startSecretsManagerStandIn({ dataDir: join(dataDir, 'secrets') });
    stops.push(() => secrets.close());
    const cognito = await startCognitoStandIn({
      dataDir: join(dataDir, 'cognito'),
      userPoolId: LOCAL_USER_POOL_ID,
      clientId: LOCAL_USER_POOL_CLIENT_ID,
    });
    stops.push(() => cognito.close());
    const simulators = await startSimulators(process.env);
    stops.push(() => simulators.close());
    const prompts = await startPromptService(process.env);
    stops.push(() => prompts.close());

    const origins: string[] = [...(options.extraOrigins ?? [])];
    const server = createGatewayServer({ routes, rootDir: ROOT_DIR, allowedOrigins: () => origins });
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port, options.host ?? '127.0.0.1', () => done());
    });
    stops.push(() => new Promise<void>((done) => server.close(() => done())).then(() => undefined));
    server.closeIdleConnections();
    const { port } = server.address() as AddressInfo;
    const baseUrl = `http://127.0.0.1:${port}`;
    origins.push(baseUrl, `http://localhost:${port}`);

    Object.assign(
      process.env,
      handlerEnvironment(
        { dynamodb: dynamodb.endpoint, secretsManager: secrets.url, cognito: cognito.url },
        dynamodb.tableNames,
        origins,
        packageVersion(),
      ),
      simulators.environment,
      prompts.environment,
    );
    const secretsClient = new SecretsManagerClient({ region: LOCAL_REGION, endpoint: secrets.url });
    const adminToken = await ensureSecrets(secretsClient);
    secretsClient.destroy();
    const first = await ensureFirstAccount(dataDir, baseUrl, adminToken);
    const info: RuntimeInfo = {
      baseUrl,
      apiKey: first.apiKey,
      adminToken,
      dashboard: first.dashboard,
      simulators: { ...simulators.urls, ...(prompts.url ? { prompts: prompts.url } : {}) },
    };
    writeJson(join(dataDir, 'runtime.json'), info);
    writeJson(join(dataDir, 'local-aws.json'), {
      region: LOCAL_REGION,
      dynamodb: dynamodb.endpoint,
      secretsManager: secrets.url,
      cognito: cognito.url,
      tables: dynamodb.tableNames,
    });
    return { info, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Written whole or not at all: readers poll for these files. */
function writeJson(file: string, value: unknown): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT_DIR, 'package.json'), 'utf8')) as { version: string }).version;
}
