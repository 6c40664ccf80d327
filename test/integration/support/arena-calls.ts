import type { LocalGateway } from '../../../local/child-runtime.js';
import { SimulatorControl, type CapturedRequest } from './simulators.js';

/**
 * The upstream calls an arena session made, read back from every simulator's captured requests
 * and put in one shape whatever the provider's wire format: who was asked, what it was shown,
 * whether the call was a vote (a forced `cast_vote` tool call in the provider's own form), and
 * its sampling.
 */
export interface ArenaCall {
  readonly provider: string;
  readonly model: string;
  /** Every system text of the call, joined (the arena's brief and any history system turn). */
  readonly system: string;
  /** The other turns, in order. */
  readonly turns: readonly { readonly role: 'user' | 'assistant'; readonly text: string }[];
  readonly vote: boolean;
  readonly temperature?: number;
  readonly seed?: number;
  readonly closedBeforeEnd: boolean;
}

type Parsed = Omit<ArenaCall, 'provider' | 'closedBeforeEnd'>;

const PROVIDERS = ['openai', 'anthropic', 'google', 'xai', 'openrouter'] as const;

export async function arenaCalls(gateway: LocalGateway): Promise<ArenaCall[]> {
  const perProvider = await Promise.all(
    PROVIDERS.map(async (provider) => {
      const requests = await SimulatorControl.of(gateway, provider).requests();
      return requests.flatMap((request) => {
        const parsed = parseCall(provider, request);
        return parsed ? [{ ...parsed, provider, closedBeforeEnd: request.closedBeforeEnd === true }] : [];
      });
    }),
  );
  return perProvider.flat();
}

export async function resetSimulators(gateway: LocalGateway): Promise<void> {
  await Promise.all(PROVIDERS.map((provider) => SimulatorControl.of(gateway, provider).reset()));
}

/** Each provider's generation requests, read from its own wire format (the rest is not an arena call). */
const PARSERS: Record<(typeof PROVIDERS)[number], (request: CapturedRequest) => Parsed | undefined> = {
  openai: (request) => (request.path === '/v1/chat/completions' ? openAiCall(request.body) : undefined),
  xai: (request) => (request.path === '/v1/chat/completions' ? openAiCall(request.body) : undefined),
  openrouter: (request) => (request.path === '/api/v1/chat/completions' ? openAiCall(request.body) : undefined),
  anthropic: (request) => (request.path === '/v1/messages' ? anthropicCall(request.body) : undefined),
  google: (request) => geminiCall(request.path, request.body),
};

function parseCall(provider: (typeof PROVIDERS)[number], request: CapturedRequest): Parsed | undefined {
  return request.method === 'POST' ? PARSERS[provider](request) : undefined;
}

/** Text of a content that is a string or a list of parts with `text`. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

const sampling = (temperature: unknown, seed: unknown) => ({
  ...(typeof temperature === 'number' ? { temperature } : {}),
  ...(typeof seed === 'number' ? { seed } : {}),
});

function openAiCall(body: any): Parsed {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  return {
    model: body.model,
    system: messages
      .filter((m) => m.role === 'system' || m.role === 'developer')
      .map((m) => textOf(m.content))
      .join('\n\n'),
    turns: messages
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => ({ role: m.role as 'user' | 'assistant', text: textOf(m.content) })),
    vote: body.tool_choice?.function?.name === 'cast_vote',
    ...sampling(body.temperature, body.seed),
  };
}

function anthropicCall(body: any): Parsed {
  const messages = (body.messages ?? []) as { role: 'user' | 'assistant'; content: unknown }[];
  return {
    model: body.model,
    system: textOf(body.system),
    turns: messages.map((m) => ({ role: m.role, text: textOf(m.content) })),
    vote: body.tool_choice?.type === 'tool' && body.tool_choice?.name === 'cast_vote',
    ...sampling(body.temperature, undefined),
  };
}

function geminiCall(path: string, body: any): Parsed | undefined {
  const model = /^\/v1beta\/models\/([^:]+):(?:stream)?generateContent$/i.exec(path)?.[1];
  if (!model) return undefined;
  const calling = body.toolConfig?.functionCallingConfig;
  return {
    model,
    system: textOf(body.systemInstruction?.parts),
    turns: ((body.contents ?? []) as { role: string; parts: unknown }[]).map((c) => ({
      role: c.role === 'model' ? 'assistant' : 'user',
      text: textOf(c.parts),
    })),
    vote: calling?.mode === 'ANY' && (calling.allowedFunctionNames ?? []).includes('cast_vote'),
    ...sampling(body.generationConfig?.temperature, body.generationConfig?.seed),
  };
}
