import { join } from 'node:path';
import {
  MEDIA_PROVIDERS,
  MEDIA_PROVIDER_IDS,
  PROVIDERS,
  PROVIDER_IDS,
  SEARCH_PROVIDERS,
  SEARCH_PROVIDER_IDS,
  apiKeyEnvVar,
  baseUrlEnvVar,
  isProviderId,
  type MediaProviderId,
  type ProviderId,
  type SearchProviderId,
} from '../../lambdas/catalog/model-catalog.js';
import { anthropicSimulator } from './anthropic.js';
import { bedrockSimulator } from './bedrock.js';
import { exaSimulator } from './exa.js';
import { fashnSimulator } from './fashn.js';
import { geminiSimulator } from './gemini.js';
import { minimaxSimulator } from './minimax.js';
import type { RunningSimulator, SimulatorDefinition } from './harness.js';
import { openAiSimulator } from './openai.js';
import { openRouterSimulator } from './openrouter.js';
import { startOnKeptPort } from './simulator-ports.js';
import { xaiSimulator } from './xai.js';

/** Bedrock's checks signatures with the runtime's own AWS credentials, when `env` holds them. */
const definitions = (env: NodeJS.ProcessEnv): Record<ProviderId, SimulatorDefinition> => ({
  openai: openAiSimulator,
  anthropic: anthropicSimulator,
  google: geminiSimulator,
  xai: xaiSimulator,
  openrouter: openRouterSimulator,
  bedrock: bedrockSimulator(
    env['AWS_ACCESS_KEY_ID'] && env['AWS_SECRET_ACCESS_KEY']
      ? { accessKeyId: env['AWS_ACCESS_KEY_ID'], secretAccessKey: env['AWS_SECRET_ACCESS_KEY'] }
      : undefined,
  ),
});

const SEARCH_DEFINITIONS: Record<SearchProviderId, SimulatorDefinition> = { exa: exaSimulator };

const MEDIA_DEFINITIONS: Record<MediaProviderId, SimulatorDefinition> = {
  minimax: minimaxSimulator,
  fashn: fashnSimulator,
};

type SimulatedId = ProviderId | SearchProviderId | MediaProviderId;

/** The key the local runtime hands the gateway for a simulated provider. */
export const SIMULATOR_API_KEY = 'sim-local-key';

export interface SimulatorsOptions {
  /**
   * The runtime's data folder: the simulators then keep their ports and the fakes' job state
   * under `<dataDir>/simulators/` across restarts (simulator-ports.ts, persisted-state.ts).
   * Without one, free ports and memory only.
   */
  readonly dataDir?: string;
}

/** Where the simulators keep what outlives a restart of the local runtime. */
export const simulatorStateDir = (dataDir: string): string => join(dataDir, 'simulators');

export interface SimulatedProviders {
  /** Root URL per simulated provider, chat, search and media (the control API lives under it). */
  readonly urls: Partial<Record<SimulatedId, string>>;
  /** `<PROVIDER>_BASE_URL` / `<PROVIDER>_API_KEY` pointing the gateway at the simulators. */
  readonly environment: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts a simulator for every provider that has no real key configured in `env`
 * (`OPENAI_API_KEY`, `EXA_API_KEY`, ...): with a real key the gateway calls the real provider
 * instead. A search provider's key set to the empty string means "none": no simulator and no
 * key, so the runtime is a deployment without search (the endpoint answers 500).
 * `close()` writes the fakes' pending state synchronously, before it waits for anything.
 */
export async function startSimulators(
  env: NodeJS.ProcessEnv,
  options: SimulatorsOptions = {},
): Promise<SimulatedProviders> {
  const stateDir = options.dataDir === undefined ? undefined : simulatorStateDir(options.dataDir);
  const running: RunningSimulator[] = [];
  const urls: Partial<Record<SimulatedId, string>> = {};
  const environment: Record<string, string> = {};
  const simulate = async (id: SimulatedId, envStem: string, base: string, definition: SimulatorDefinition) => {
    const simulator = await startOnKeptPort(id, definition, stateDir);
    running.push(simulator);
    urls[id] = simulator.url;
    environment[`${envStem}_BASE_URL`] = simulator.url + apiPrefix(base);
    // A keyless provider signs with the runtime's AWS credentials instead (Bedrock).
    if (!isProviderId(id) || PROVIDERS[id].credential === 'api-key')
      environment[`${envStem}_API_KEY`] = SIMULATOR_API_KEY;
  };
  const chat = definitions(env);
  for (const provider of PROVIDER_IDS) {
    // A real key, or for a keyless provider a real endpoint, means the real provider.
    const real = PROVIDERS[provider].credential === 'aws-role' ? baseUrlEnvVar(provider) : apiKeyEnvVar(provider);
    if (env[real]) continue;
    await simulate(provider, PROVIDERS[provider].envStem, PROVIDERS[provider].defaultBaseUrl, chat[provider]);
  }
  for (const provider of SEARCH_PROVIDER_IDS) {
    const { envStem, defaultBaseUrl } = SEARCH_PROVIDERS[provider];
    if (env[`${envStem}_API_KEY`] !== undefined) continue;
    await simulate(provider, envStem, defaultBaseUrl, SEARCH_DEFINITIONS[provider]);
  }
  for (const provider of MEDIA_PROVIDER_IDS) {
    const { envStem, defaultBaseUrl } = MEDIA_PROVIDERS[provider];
    if (env[`${envStem}_API_KEY`] !== undefined) continue;
    await simulate(provider, envStem, defaultBaseUrl, MEDIA_DEFINITIONS[provider]);
  }
  return { urls, environment, close: async () => void (await Promise.all(running.map((s) => s.close()))) };
}

/** The provider's API path under its host (`/v1`, `/api/v1`, `/v1beta`, or none). */
function apiPrefix(defaultBaseUrl: string): string {
  return new URL(defaultBaseUrl).pathname.replace(/\/+$/, '');
}
