import { invalidRequest } from '../chat-errors.js';
import type { ChatMessage } from '../../providers/chat-types.js';
import type { PromptTemplate } from './prompt-template.js';

/**
 * Renders a template's messages with the request's `prompt_variables`.
 *
 * - A placeholder is exactly `{{identifier}}` (letters, digits, `_`, not starting with a
 *   digit), with optional whitespace inside the braces: `{{ name }}`. Any other text with
 *   braces is literal, so templates holding JSON or code need no escaping.
 * - Values: strings as they are, anything else as JSON (`3`, `true`, `{"a":1}`).
 *   A `null` value counts as not given, so the default applies (clients send null for "unset").
 * - Substitution is one pass: a value containing `{{x}}` is inserted literally, never
 *   expanded, so caller input cannot reach other variables.
 * - A placeholder the template does not declare is treated as required without a default:
 *   a literal `{{x}}` must never reach the model.
 * - Missing required variables fail as one 400 naming all of them, so a client fixes its
 *   request in one round.
 * - Request variables the template does not use are ignored: a client may send a superset
 *   that works across template versions.
 */

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

type Renderable = Pick<PromptTemplate, 'messages' | 'variables'>;

export function renderTemplate(template: Renderable, given: Readonly<Record<string, unknown>> = {}): ChatMessage[] {
  const values = new Map<string, string>();
  const missing: string[] = [];
  const resolve = (name: string, fallback: unknown, required: boolean) => {
    if (values.has(name) || missing.includes(name)) return;
    const value = Object.hasOwn(given, name) && given[name] !== null ? given[name] : fallback;
    if (value !== undefined && value !== null) values.set(name, stringify(value));
    else if (required) missing.push(name);
    // Optional without a value renders as empty text.
    else values.set(name, '');
  };
  for (const variable of template.variables) resolve(variable.name, variable.default, variable.required);
  for (const message of template.messages) {
    for (const [, name] of message.content.matchAll(PLACEHOLDER)) resolve(name!, undefined, true);
  }
  if (missing.length > 0) {
    throw invalidRequest('prompt_variables', `prompt_variables: missing required variables: ${missing.join(', ')}`);
  }
  return template.messages.map(
    (message) =>
      ({
        role: message.role,
        content: message.content.replace(PLACEHOLDER, (_, name: string) => values.get(name)!),
      }) as ChatMessage,
  );
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
