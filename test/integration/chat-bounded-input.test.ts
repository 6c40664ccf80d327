import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * Caller input that used to stall or crash the runtime, over real HTTP against the local
 * runtime: a backtracking pattern, bodies nested thousands deep, numbers JSON cannot carry,
 * a forced tool that does not exist. Each is a prompt 400 naming its field.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'bounded-input',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

const chatRaw = (rawBody: string): Promise<Answer> =>
  call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(local.key), 'Content-Type': 'application/json', 'X-Cache': 'no-cache' },
    rawBody,
  });
const chat = (body: Record<string, unknown>) =>
  chatRaw(JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }], ...body }));

function expectBadRequest(answer: Answer, param: string, says: string | RegExp): void {
  expect({ status: answer.status, error: answer.body?.error }).toMatchObject({
    status: 400,
    error: { code: 'BAD_REQUEST', param, message: expect.stringMatching(says) },
  });
}

/** A body with `{"type":"object","properties":{"a": ...}}` nested `depth` times at `placeholder`. */
function nestedSchemaBody(template: Record<string, unknown>, depth: number): string {
  const open = '{"type":"object","properties":{"a":'.repeat(depth);
  const close = '}}'.repeat(depth);
  return JSON.stringify(template).replace('"SCHEMA"', `${open}{"type":"string"}${close}`);
}

const deepTool = (stream: boolean) => ({
  model: 'gpt',
  stream,
  messages: [{ role: 'user', content: 'hi' }],
  tools: [{ type: 'function', function: { name: 'f', parameters: 'SCHEMA' } }],
});
const deepFormat = (guardrails: string[]) => ({
  model: 'gpt',
  messages: [{ role: 'user', content: 'hi' }],
  response_format: { type: 'json_schema', json_schema: { name: 'deep', schema: 'SCHEMA' } },
  guardrails: { enabled: guardrails },
});

describe('nesting', () => {
  test.each([false, true])('tool parameters 5000 deep (stream %s) are a 400, not a 500 or 503', async (stream) => {
    expectBadRequest(
      await chatRaw(nestedSchemaBody(deepTool(stream), 5000)),
      'tools[0].function.parameters',
      /at most 128 levels/,
    );
  });

  test('tool parameters over the schema limit name the schema limit', async () => {
    expectBadRequest(
      await chatRaw(nestedSchemaBody(deepTool(false), 40)),
      'tools[0].function.parameters',
      /at most 64 levels/,
    );
  });

  test.each([[[]], [['schema_validation']]])(
    'a response_format schema 5000 deep is a 400 (guardrails %j)',
    async (guardrails) => {
      expectBadRequest(
        await chatRaw(nestedSchemaBody(deepFormat(guardrails), 5000)),
        'response_format.json_schema.schema',
        /at most 128 levels/,
      );
    },
  );

  test('an array 5000 deep in a field the gateway ignores is a 400 too', async () => {
    const body = JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }], metadata: 'DEEP' });
    expectBadRequest(
      await chatRaw(body.replace('"DEEP"', `${'['.repeat(5000)}${']'.repeat(5000)}`)),
      'metadata',
      /at most 128 levels/,
    );
  });
});

describe('patterns', () => {
  // V8's backtracking engine needs about 2^n steps here (n = 29: ~19 s); RE2 needs n.
  test('a catastrophic pattern with schema_validation answers at once', async () => {
    const answer = await chat({
      messages: [{ role: 'user', content: `[sim:reply="${'a'.repeat(34)}!"]` }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 's', schema: { type: 'string', pattern: '^(a+)+$' } },
      },
      guardrails: { enabled: ['schema_validation'] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'SCHEMA_VALIDATION_FAILED' });
  }, 10_000);

  test('a pattern RE2 cannot run is a 400 naming the schema', async () => {
    const answer = await chat({
      response_format: {
        type: 'json_schema',
        json_schema: { name: 's', schema: { type: 'object', patternProperties: { '^(?!x)': { type: 'string' } } } },
      },
      guardrails: { enabled: ['schema_validation'] },
    });
    expectBadRequest(answer, 'response_format.json_schema.schema', /RE2.*no lookaround/);
  });
});

describe('numbers and agreement between fields', () => {
  test.each([
    ['1e309', 'seed', /finite number/],
    ['123456789012345678901234567890', 'seed', /<= 9007199254740991/],
    ['-1e400', 'temperature', /finite number/],
  ])('%s is a 400 naming %s', async (number, field, says) => {
    const body = JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }], [field]: 'N' });
    expectBadRequest(await chatRaw(body.replace('"N"', number)), field, says);
  });

  test('a number that overflows inside tool parameters names its place', async () => {
    const body = JSON.stringify({
      model: 'gpt',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'integer', maximum: 'N' } } }],
    });
    expectBadRequest(await chatRaw(body.replace('"N"', '1e999')), 'tools[0].function.parameters', /finite/);
  });

  test('tool_choice naming a function not in tools is a 400', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather' } }];
    expectBadRequest(
      await chat({ tools, tool_choice: { type: 'function', function: { name: 'get_time' } } }),
      'tool_choice.function.name',
      /"get_time" is not the name of a function in tools/,
    );
    expectBadRequest(await chat({ tool_choice: 'required' }), 'tool_choice', /needs at least one tool/);
  });

  test('count and length limits say the limit', async () => {
    const many = Array.from({ length: 10_001 }, () => ({ role: 'user', content: 'x' }));
    expectBadRequest(await chat({ messages: many }), 'messages', /more than 10000 items/);
    expectBadRequest(
      await chat({ messages: [{ role: 'user', content: 'x'.repeat(1_000_001) }] }),
      'messages[0].content',
      /more than 1000000 characters/,
    );
    expectBadRequest(await chat({ stop: ['a', 'b', 'c', 'd', 'e'] }), 'stop', /more than 4 items/);
  });
});
