import type { GatewayConfiguration } from '../config/configuration.js';
import { readSecret } from '../store/secret-values.js';
import { moderatorFor, type ApplyGuardrailSend, type Moderator } from './guardrails/moderation.js';

/**
 * The content moderator a configuration names (see moderatorFor), made once per configuration:
 * the instance's. Bedrock's SDK client is loaded only when a Bedrock guardrail is configured;
 * the moderation API's key is read from its secret with the secrets' bounded cache
 * (lambdas/store/secret-values.ts), so a new key is used within five minutes on every instance.
 */
const moderators = new WeakMap<GatewayConfiguration, Moderator>();

export function deploymentModerator(config: GatewayConfiguration): Moderator {
  let moderator = moderators.get(config);
  if (!moderator) moderators.set(config, (moderator = moderatorFor(config.moderation, { bedrockSend, readSecret })));
  return moderator;
}

const bedrockSend: ApplyGuardrailSend = async (input, signal) => {
  const { BedrockRuntimeClient, ApplyGuardrailCommand } = await import('@aws-sdk/client-bedrock-runtime');
  client ??= new BedrockRuntimeClient({ maxAttempts: 2 });
  return client.send(new ApplyGuardrailCommand(input), { abortSignal: signal });
};
let client: import('@aws-sdk/client-bedrock-runtime').BedrockRuntimeClient | undefined;
