import { invalidRequest } from './chat-errors.js';
import { findJsonViolation } from '../schema/json-limits.js';
import type { GatewayChatRequest } from './chat-request.js';

/**
 * What JSON Schema validation of the body cannot say: limits on the caller's own schemas, and
 * agreement between fields. Run before anything walks the request. Limits are documented in
 * README.md (chat completions).
 */
export const MAX_SCHEMA_DEPTH = 64;
export const MAX_SCHEMA_NODES = 10_000;

export function checkChatRequest(request: GatewayChatRequest): void {
  request.tools?.forEach((tool, i) => {
    if (tool.function.parameters) checkSchema(tool.function.parameters, `tools[${i}].function.parameters`);
  });
  const format = request.response_format;
  if (format?.type === 'json_schema' && format.json_schema.schema)
    checkSchema(format.json_schema.schema, 'response_format.json_schema.schema');
  checkToolChoice(request);
}

function checkSchema(schema: Record<string, unknown>, field: string): void {
  const violation = findJsonViolation(schema, { maxDepth: MAX_SCHEMA_DEPTH, maxNodes: MAX_SCHEMA_NODES });
  if (!violation) return;
  switch (violation.kind) {
    case 'depth':
      throw invalidRequest(field, `${field}: nests too deep; a schema may nest at most ${MAX_SCHEMA_DEPTH} levels`);
    case 'nodes':
      throw invalidRequest(field, `${field}: is too large; a schema may hold at most ${MAX_SCHEMA_NODES} JSON values`);
    case 'number':
      throw invalidRequest(field, `${field}: must hold only finite numbers`);
  }
}

/** A forced tool must be one of `tools`; providers would refuse it later, some with a 500. */
function checkToolChoice(request: GatewayChatRequest): void {
  const choice = request.tool_choice;
  const names = (request.tools ?? []).map((tool) => tool.function.name);
  if (choice === 'required' && names.length === 0)
    throw invalidRequest('tool_choice', 'tool_choice: "required" needs at least one tool in tools');
  if (typeof choice === 'object' && !names.includes(choice.function.name))
    throw invalidRequest(
      'tool_choice.function.name',
      `tool_choice.function.name: "${choice.function.name}" is not the name of a function in tools`,
    );
}
