import { ChatError, invalidRequest } from '../chat-errors.js';
import { logger } from '../../config/logger.js';
import type { ChatMessage } from '../../providers/chat-types.js';
import { PromptServiceError, type FetchTemplate } from './prompt-service-client.js';
import { renderTemplate } from './render-template.js';

/**
 * Managed prompt templates (docs/interface.md §2.2 `prompt_id`, `prompt_version`, `prompt_variables`).
 *
 * The result is the rendered template's messages followed by the request's own: the template
 * supplies the system and context turns, the request supplies the conversation. Without a
 * `prompt_version` the template's `production` label decides the version. The template's
 * `model` is not applied: `model` is required in the request and the request decides.
 */

export interface PromptFields {
  readonly prompt_id?: string;
  readonly prompt_version?: number;
  readonly prompt_variables?: Record<string, unknown>;
  readonly messages: ChatMessage[];
}

export interface ApplyPromptDeps {
  readonly fetchTemplate: FetchTemplate;
}

export async function applyPrompt(
  request: PromptFields,
  deps: ApplyPromptDeps,
  signal: AbortSignal,
): Promise<ChatMessage[]> {
  const { prompt_id: id, prompt_version: version, prompt_variables: variables } = request;
  if (id === undefined) {
    // A version or variables without a template are a client mistake, not something to ignore.
    if (version !== undefined) throw invalidRequest('prompt_id', 'prompt_id: required when prompt_version is given');
    if (variables !== undefined)
      throw invalidRequest('prompt_id', 'prompt_id: required when prompt_variables is given');
    return request.messages;
  }
  let result;
  try {
    result = await deps.fetchTemplate(version === undefined ? { id } : { id, version }, signal);
  } catch (error) {
    throw serviceError(error);
  }
  if (!result.found) {
    throw version === undefined
      ? invalidRequest('prompt_id', `unknown prompt '${id}': no production version found`)
      : invalidRequest('prompt_version', `unknown prompt '${id}' version ${version}`);
  }
  return [...renderTemplate(result.template, variables), ...request.messages];
}

function serviceError(error: unknown): unknown {
  // Anything else (the caller's abort above all) passes through as it is.
  if (!(error instanceof PromptServiceError)) return error;
  if (error.kind === 'config') {
    // The client cannot fix this and must not see why; the operator must.
    logger.error('prompt service misconfigured', { error: error.message, status: error.status });
    return new ChatError('dependency_unavailable', 'Prompt templates are not available on this deployment');
  }
  logger.warn('prompt service unavailable', { error: error.message, status: error.status });
  return new ChatError('dependency_unavailable', 'The prompt-template service is unavailable; retry shortly');
}
