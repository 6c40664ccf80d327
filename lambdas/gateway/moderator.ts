import { moderatorFromEnv, type ApplyGuardrailSend, type Moderator } from './guardrails/index.js';

/**
 * The content moderator this deployment uses (see moderatorFromEnv). Bedrock's SDK client is
 * loaded only when a Bedrock guardrail is configured.
 */
let moderator: Moderator | undefined;

export function deploymentModerator(): Moderator {
  moderator ??= moderatorFromEnv(process.env, { bedrockSend });
  return moderator;
}

const bedrockSend: ApplyGuardrailSend = async (input, signal) => {
  const { BedrockRuntimeClient, ApplyGuardrailCommand } = await import('@aws-sdk/client-bedrock-runtime');
  client ??= new BedrockRuntimeClient({ maxAttempts: 2 });
  return client.send(new ApplyGuardrailCommand(input as never), { abortSignal: signal }) as never;
};
let client: import('@aws-sdk/client-bedrock-runtime').BedrockRuntimeClient | undefined;
