/**
 * A prompt template version as the prompt-template service returns it (wire API in
 * prompt-service-client.ts). Checked on arrival: a template is data from another system, and
 * a malformed one must fail as "service unreadable", not as a crash deep in rendering.
 */

/** Template turns: the context a template sets up. Tool turns need ids a template cannot know. */
export type TemplateRole = 'system' | 'developer' | 'user' | 'assistant';

export interface TemplateMessage {
  readonly role: TemplateRole;
  /** Text with `{{name}}` placeholders. */
  readonly content: string;
}

export interface TemplateVariable {
  readonly name: string;
  readonly required: boolean;
  /** Any JSON value; applied when the request gives none. */
  readonly default?: unknown;
}

export interface PromptTemplate {
  readonly id: string;
  readonly version: number;
  readonly labels: readonly string[];
  readonly messages: readonly TemplateMessage[];
  readonly variables: readonly TemplateVariable[];
  /** The model the template was written for: informational, the request's `model` decides. */
  readonly model?: string;
}

const ROLES: ReadonlySet<string> = new Set<TemplateRole>(['system', 'developer', 'user', 'assistant']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The template, or undefined when the value is not one. Unknown fields are dropped. */
export function parseTemplate(value: unknown): PromptTemplate | undefined {
  if (!isRecord(value)) return undefined;
  const { id, version, labels = [], messages, variables = [], model } = value;
  if (typeof id !== 'string' || id === '') return undefined;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) return undefined;
  if (!Array.isArray(labels) || !labels.every((l) => typeof l === 'string')) return undefined;
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  const turns: TemplateMessage[] = [];
  for (const m of messages) {
    if (!isRecord(m) || typeof m.role !== 'string' || !ROLES.has(m.role) || typeof m.content !== 'string')
      return undefined;
    turns.push({ role: m.role as TemplateRole, content: m.content });
  }
  if (!Array.isArray(variables)) return undefined;
  const vars: TemplateVariable[] = [];
  for (const v of variables) {
    if (!isRecord(v) || typeof v.name !== 'string' || v.name === '') return undefined;
    if (v.required !== undefined && typeof v.required !== 'boolean') return undefined;
    vars.push({
      name: v.name,
      required: v.required === true,
      ...(v.default !== undefined ? { default: v.default } : {}),
    });
  }
  if (model !== undefined && typeof model !== 'string') return undefined;
  return { id, version, labels: labels as string[], messages: turns, variables: vars, ...(model ? { model } : {}) };
}
