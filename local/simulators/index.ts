import { PROVIDERS, PROVIDER_IDS, apiKeyEnvVar, baseUrlEnvVar, type ProviderId } from '../../lambdas/catalog/index.js';
import { anthropicSimulator } from './anthropic.js';
import { geminiSimulator } from './gemini.js';
import type { RunningSimulator, SimulatorDefinition } from './harness.js';
import { startSimulator } from './harness.js';
import { openAiSimulator } from './openai.js';
import { openRouterSimulator } from './openrouter.js';
import { xaiSimulator } from './xai.js';

const DEFINITIONS: Record<ProviderId, SimulatorDefinition> = {
  openai: openAiSimulator,
  anthropic: anthropicSimulator,
  google: geminiSimulator,
  xai: xaiSimulator,
  openrouter: openRouterSimulator,
};

/** The key the local runtime hands the gateway for a simulated provider. */
export const SIMULATOR_API_KEY = 'sim-local-key';

export interface SimulatedProviders {
  /** Root URL per simulated provider (the control API lives under it). */
  readonly urls: Partial<Record<ProviderId, string>>;
  /** `<PROVIDER>_BASE_URL` / `<PROVIDER>_API_KEY` pointing the gateway at the simulators. */
  readonly environment: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts a simulator for every provider that has no real key configured in `env`
 * (`OPENAI_API_KEY`, ...): with a real key the gateway calls the real provider instead.
 */
export async function startSimulators(env: NodeJS.ProcessEnv): Promise<SimulatedProviders> {
  const running: RunningSimulator[] = [];
  const urls: Partial<Record<ProviderId, string>> = {};
  const environment: Record<string, string> = {};
  for (const provider of PROVIDER_IDS) {
    if (env[apiKeyEnvVar(provider)]) continue;
    const simulator = await startSimulator(DEFINITIONS[provider]);
    running.push(simulator);
    urls[provider] = simulator.url;
    environment[baseUrlEnvVar(provider)] = simulator.url + apiPrefix(provider);
    environment[apiKeyEnvVar(provider)] = SIMULATOR_API_KEY;
  }
  return { urls, environment, close: async () => void (await Promise.all(running.map((s) => s.close()))) };
}

/** The provider's API path under its host (`/v1`, `/api/v1`, `/v1beta`, or none). */
function apiPrefix(provider: ProviderId): string {
  return new URL(PROVIDERS[provider].defaultBaseUrl).pathname.replace(/\/+$/, '');
}
