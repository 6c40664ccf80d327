import { readSecret } from '../store/secret-values.js';
import { moderatorFromEnv, type ApplyGuardrailSend, type Moderator } from './guardrails/moderation.js';

/**
 * The content moderator this deployment uses (see moderatorFromEnv). Bedrock's SDK client is
 * loaded only when a Bedrock guardrail is configured; the moderation API's key is read from its
 * secret with the secrets' bounded cache (lambdas/store/secret-values.ts), so a new key is used
 * within five minutes on every instance.
 */
let moderator: Moderator | undefined;

export function deploymentModerator(): Moderator {
  moderator ??= moderatorFromEnv(process.env, { bedrockSend, readSecret });
  return moderator;
}

const bedrockSend: ApplyGuardrailSend = async (input, signal) => {
  const { BedrockRuntimeClient, ApplyGuardrailCommand } = await import('@aws-sdk/client-bedrock-runtime');
  client ??= new BedrockRuntimeClient({ maxAttempts: 2 });
  return client.send(new ApplyGuardrailCommand(input), { abortSignal: signal });
};
let client: import('@aws-sdk/client-bedrock-runtime').BedrockRuntimeClient | undefined;
