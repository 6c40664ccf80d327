import { samplingOf } from './sampling.js';
import type { ScriptInput, ScriptMessage, ScriptToolChoice } from './script-types.js';

/**
 * The Bedrock simulator's request side: the checks Converse makes (each failure is the message
 * of a 400 ValidationException), and the conversion of a valid request into the script's input.
 */

export interface ConverseWireBlock {
  text?: unknown;
  image?: { format?: unknown; source?: { bytes?: unknown } } | null;
  toolUse?: { toolUseId?: unknown; name?: unknown; input?: unknown } | null;
  toolResult?: { toolUseId?: unknown; content?: unknown } | null;
}

export interface ConverseWireRequest {
  messages: { role: 'user' | 'assistant'; content: ConverseWireBlock[] }[];
  system?: { text?: unknown }[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: {
    tools: { toolSpec: { name: string; inputSchema: { json: Record<string, unknown> } } }[];
    toolChoice?: { auto?: object; any?: object; tool?: { name: string } };
  };
}

const KNOWN_FIELDS = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'guardrailConfig',
  'additionalModelRequestFields',
  'additionalModelResponseFieldPaths',
  'promptVariables',
  'requestMetadata',
  'performanceConfig',
]);
const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Why Converse would refuse this body, or undefined. */
export function validateConverseRequest(body: unknown): string | undefined {
  if (!isObject(body)) return 'The request body must be a JSON object.';
  for (const field of Object.keys(body))
    if (!KNOWN_FIELDS.has(field)) return `Malformed input request: extraneous key [${field}] is not permitted`;
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return 'A conversation must start with a user message.';
  let usesTools = false;
  for (const [i, message] of messages.entries()) {
    if (!isObject(message) || (message['role'] !== 'user' && message['role'] !== 'assistant'))
      return `messages.${i}.role: must be user or assistant`;
    if (i === 0 && message['role'] !== 'user') return 'A conversation must start with a user message.';
    if (i > 0 && (messages[i - 1] as { role: unknown }).role === message['role'])
      return 'A conversation must alternate between user and assistant roles.';
    const content = message['content'];
    if (!Array.isArray(content) || content.length === 0) return `messages.${i}.content: must hold at least one block`;
    for (const [j, block] of (content as unknown[]).entries()) {
      const problem = blockProblem(block, `messages.${i}.content.${j}`);
      if (problem) return problem;
      if (isObject(block) && ('toolUse' in block || 'toolResult' in block)) usesTools = true;
    }
  }
  const inference = body['inferenceConfig'];
  if (inference !== undefined) {
    if (!isObject(inference)) return 'inferenceConfig: must be an object';
    const { maxTokens, temperature, topP, stopSequences } = inference;
    if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && (maxTokens as number) >= 1))
      return 'inferenceConfig.maxTokens: must be a positive integer';
    for (const [name, value] of [
      ['temperature', temperature],
      ['topP', topP],
    ] as const)
      if (value !== undefined && !(typeof value === 'number' && value >= 0 && value <= 1))
        return `inferenceConfig.${name}: must be between 0 and 1`;
    if (
      stopSequences !== undefined &&
      !(Array.isArray(stopSequences) && stopSequences.every((s) => typeof s === 'string' && s !== ''))
    )
      return 'inferenceConfig.stopSequences: must be non-empty strings';
  }
  const tools = body['toolConfig'];
  if (tools !== undefined) {
    if (!isObject(tools) || !Array.isArray(tools['tools']) || tools['tools'].length === 0)
      return 'toolConfig.tools: must hold at least one tool';
    for (const [i, tool] of (tools['tools'] as unknown[]).entries()) {
      const spec = isObject(tool) ? tool['toolSpec'] : undefined;
      if (!isObject(spec) || typeof spec['name'] !== 'string' || !isObject(spec['inputSchema']))
        return `toolConfig.tools.${i}.toolSpec: needs a name and an inputSchema`;
    }
  } else if (usesTools) return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  return undefined;
}

function blockProblem(block: unknown, field: string): string | undefined {
  if (!isObject(block) || Object.keys(block).length !== 1) return `${field}: a content block holds exactly one member`;
  if ('text' in block)
    return typeof block['text'] === 'string' && block['text'] !== '' ? undefined : `${field}.text: must not be blank`;
  if ('image' in block) {
    const image = block['image'];
    if (!isObject(image) || !IMAGE_FORMATS.has(image['format'] as string))
      return `${field}.image.format: must be png, jpeg, gif or webp`;
    const bytes = isObject(image['source']) ? image['source']['bytes'] : undefined;
    return typeof bytes === 'string' && bytes !== '' && BASE64.test(bytes)
      ? undefined
      : `${field}.image.source.bytes: must be base64`;
  }
  if ('toolUse' in block) {
    const use = block['toolUse'];
    return isObject(use) &&
      typeof use['toolUseId'] === 'string' &&
      typeof use['name'] === 'string' &&
      isObject(use['input'])
      ? undefined
      : `${field}.toolUse: needs toolUseId, name and an input object`;
  }
  if ('toolResult' in block) {
    const result = block['toolResult'];
    return isObject(result) && typeof result['toolUseId'] === 'string' && Array.isArray(result['content'])
      ? undefined
      : `${field}.toolResult: needs toolUseId and content`;
  }
  return undefined;
}

export function toScriptInput(model: string, request: ConverseWireRequest): ScriptInput {
  const messages: ScriptMessage[] = (request.system ?? []).flatMap((s) =>
    typeof s.text === 'string' ? [{ role: 'system' as const, text: s.text, images: 0 }] : [],
  );
  const toolNames = new Map<string, string>();
  for (const message of request.messages) {
    let text = '';
    let images = 0;
    for (const block of message.content) {
      if (typeof block.text === 'string') text += block.text;
      else if (block.image) images++;
      else if (block.toolUse && typeof block.toolUse.toolUseId === 'string')
        toolNames.set(block.toolUse.toolUseId, String(block.toolUse.name));
      else if (block.toolResult) {
        const content = Array.isArray(block.toolResult.content)
          ? (block.toolResult.content as { text?: unknown }[])
          : [];
        const toolName = toolNames.get(String(block.toolResult.toolUseId));
        messages.push({
          role: 'tool',
          text: content.map((c) => (typeof c.text === 'string' ? c.text : '')).join(''),
          images: 0,
          ...(toolName ? { toolName } : {}),
        });
      }
    }
    if (text !== '' || images > 0) messages.push({ role: message.role, text, images });
  }
  const choice = request.toolConfig?.toolChoice;
  const toolChoice: ScriptToolChoice = choice?.any ? 'required' : choice?.tool ? { name: choice.tool.name } : 'auto';
  const inference = request.inferenceConfig ?? {};
  return {
    model,
    messages,
    tools: (request.toolConfig?.tools ?? []).map((t) => ({
      name: t.toolSpec.name,
      parameters: t.toolSpec.inputSchema.json,
    })),
    toolChoice,
    ...(inference.maxTokens !== undefined ? { maxTokens: inference.maxTokens } : {}),
    ...(inference.stopSequences ? { stop: inference.stopSequences } : {}),
    ...samplingOf(inference.temperature, undefined),
  };
}
