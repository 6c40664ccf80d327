import { checkChatRequest, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from '../../../lambdas/gateway/chat-request-checks.js';
import type { GatewayChatRequest } from '../../../lambdas/gateway/chat-request.js';
import { ChatError } from '../../../lambdas/gateway/chat-errors.js';

const request = (extra: Partial<GatewayChatRequest>): GatewayChatRequest => ({
  model: 'gpt',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});
const tool = (name: string, parameters?: Record<string, unknown>) => ({
  type: 'function' as const,
  function: { name, ...(parameters ? { parameters } : {}) },
});
/** A schema whose JSON nests exactly `depth` levels. */
function schemaOfDepth(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 1; level < depth; level++) schema = { not: schema };
  return schema;
}

function rejection(body: GatewayChatRequest): ChatError {
  try {
    checkChatRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ChatError);
    return error as ChatError;
  }
  throw new Error('expected a 400');
}

test(`schemas may nest ${MAX_SCHEMA_DEPTH} levels, in tools and in response_format`, () => {
  expect(() => checkChatRequest(request({ tools: [tool('f', schemaOfDepth(MAX_SCHEMA_DEPTH))] }))).not.toThrow();
  const deepTool = rejection(request({ tools: [tool('f'), tool('g', schemaOfDepth(MAX_SCHEMA_DEPTH + 1))] }));
  expect(deepTool.field).toBe('tools[1].function.parameters');
  expect(deepTool.message).toBe(
    `tools[1].function.parameters: nests too deep; a schema may nest at most ${MAX_SCHEMA_DEPTH} levels`,
  );
  const format = { type: 'json_schema' as const, json_schema: { name: 's', schema: schemaOfDepth(100) } };
  expect(rejection(request({ response_format: format })).field).toBe('response_format.json_schema.schema');
});

test(`schemas may hold ${MAX_SCHEMA_NODES} values`, () => {
  const properties = Object.fromEntries(Array.from({ length: MAX_SCHEMA_NODES }, (_, i) => [`p${i}`, {}]));
  const error = rejection(request({ tools: [tool('f', { type: 'object', properties })] }));
  expect(error.message).toBe(
    `tools[0].function.parameters: is too large; a schema may hold at most ${MAX_SCHEMA_NODES} JSON values`,
  );
});

test('tool_choice must name a function in tools', () => {
  const tools = [tool('get_weather')];
  const named = (name: string) => ({ type: 'function' as const, function: { name } });
  expect(() => checkChatRequest(request({ tools, tool_choice: named('get_weather') }))).not.toThrow();
  expect(() => checkChatRequest(request({ tool_choice: 'auto' }))).not.toThrow();
  expect(() => checkChatRequest(request({ tool_choice: 'none' }))).not.toThrow();
  const missing = rejection(request({ tools, tool_choice: named('get_time') }));
  expect(missing.field).toBe('tool_choice.function.name');
  expect(rejection(request({ tool_choice: named('get_time') })).field).toBe('tool_choice.function.name');
  expect(rejection(request({ tool_choice: 'required' })).field).toBe('tool_choice');
});
