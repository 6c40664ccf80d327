/**
 * The local runtime's stand-ins for everything outside the gateway (Secrets Manager, Cognito
 * and SQS stand-ins, the provider simulators, the prompt service), in their own process: the
 * gateway process then holds only the gateway, as a Lambda instance would, so its CPU and
 * memory can be measured on their own. Protocol: argv[2] is JSON `{dataDir}`, and
 * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY in its environment are what the stand-ins accept
 * signatures from; once ready the child sends its endpoints over IPC; it stops on SIGTERM/SIGINT
 * or when its parent goes away.
 * The simulators keep their ports and the fakes' job state under `<dataDir>/simulators/`, so
 * a restart finds the upstream jobs the gateway still polls, as a real upstream outlives it.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  LOCAL_TENANT_ACCESS_ROLE_ARN,
  LOCAL_USER_POOL_CLIENT_ID,
  LOCAL_USER_POOL_ID,
  PROVIDER_KEY_SECRET_PREFIX,
} from './runtime-config.js';
import { startStsStandIn } from './standins/sts.js';
import { TENANT_MAX_SESSION_SECONDS, TENANT_SECRET_READ, TENANT_SESSION_TAG_KEY } from '../lib/tenant-access-policy.js';
import { startCognitoStandIn } from './standins/cognito.js';
import { startSecretsManagerStandIn } from './standins/secrets-manager.js';
import { startSqsStandIn } from './standins/sqs.js';
import { simulatorStateDir, startSimulators } from './simulators/simulator-registry.js';
import { startPromptService } from './simulators/prompt-service.js';

export interface LocalServicesReady {
  readonly secretsManager: string;
  readonly cognito: string;
  readonly sqs: string;
  readonly sts: string;
  /** Root URL per simulated upstream (provider ids, and `prompts`). */
  readonly simulators: Record<string, string>;
  /** What the gateway needs to call them: `<PROVIDER>_BASE_URL`, keys, PROMPT_SERVICE_URL... */
  readonly environment: Record<string, string>;
}

const { dataDir } = JSON.parse(process.argv[2] ?? '{}') as { dataDir: string };

const secrets = await startSecretsManagerStandIn({
  dataDir: join(dataDir, 'secrets'),
  tenantReads: {
    namePrefix: PROVIDER_KEY_SECRET_PREFIX,
    resourceTag: TENANT_SECRET_READ.resourceTag,
    sessionTag: TENANT_SESSION_TAG_KEY,
  },
});
// `GATEWAY_STS_LATENCY_MS`: each AssumeRole waits as a regional STS call would (the latency bench).
const sts = await startStsStandIn({
  roleArn: LOCAL_TENANT_ACCESS_ROLE_ARN,
  sessionTag: TENANT_SESSION_TAG_KEY,
  maxSessionSeconds: TENANT_MAX_SESSION_SECONDS,
  latencyMs: Number(process.env['GATEWAY_STS_LATENCY_MS'] ?? 0) || 0,
});
const cognito = await startCognitoStandIn({
  dataDir: join(dataDir, 'cognito'),
  userPoolId: LOCAL_USER_POOL_ID,
  clientId: LOCAL_USER_POOL_CLIENT_ID,
});
const sqs = await startSqsStandIn({ dataDir: join(dataDir, 'sqs') });
const simulators = await startSimulators(process.env, { dataDir });
// local/prompts/, found from this file's folder, which its bundle shares (local/build-runtime.mjs).
const promptSeeds = fileURLToPath(new URL('./prompts/', import.meta.url));
const prompts = await startPromptService(process.env, promptSeeds, simulatorStateDir(dataDir));

const ready: LocalServicesReady = {
  secretsManager: secrets.url,
  cognito: cognito.url,
  sqs: sqs.url,
  sts: sts.url,
  simulators: { ...simulators.urls, ...(prompts.url ? { prompts: prompts.url } : {}) },
  environment: { ...simulators.environment, ...prompts.environment },
};
process.send?.(ready);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(1), 5_000).unref();
  // simulators.close() writes the fakes' pending job state synchronously, before this waits
  // for anything: the timer above cannot cut it short.
  await Promise.allSettled([
    secrets.close(),
    sts.close(),
    cognito.close(),
    sqs.close(),
    simulators.close(),
    prompts.close(),
  ]);
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('disconnect', () => void stop());
