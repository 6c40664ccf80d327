import fc from 'fast-check';
import { checkChatRequest } from '../../../lambdas/chat/chat-request-checks.js';
import { chatRequestValidator } from '../../../lambdas/chat/chat-request.js';
import { guardAnswer, guardRequest } from '../../../lambdas/chat/guardrails/guardrail-pipeline.js';
import { localModerator } from '../../../lambdas/chat/guardrails/moderation.js';
import { ChatError } from '../../../lambdas/chat/chat-errors.js';
import { httpErrorOf } from '../../../lambdas/http/errors.js';
import { HttpError } from '../../../lambdas/http/errors.js';
import { parseJsonBody, validate } from '../../../lambdas/http/validation.js';
import type { ChatCompletion } from '../../../lambdas/providers/chat-types.js';

/**
 * Properties over pathological caller input (catastrophic and unsupported patterns, schemas and
 * values nested far past the limits, numbers JSON cannot carry), sent through the real body
 * validation, request checks and schema_validation guardrail: nothing escapes as anything but a
 * 4xx, and no request's synchronous work runs away. The work is measured as the main thread's
 * CPU time (process.threadCpuUsage), which is what holds the event loop. The design target, a
 * check well under 50 ms, is a benchmark figure (`npm run bench -- schema`: CPU per budget
 * step, the budget's worst case): a test bound near it failed a full run on a busy machine at
 * 60 ms (CPU time too varies with the machine's load). This bound is 20 times the target: it
 * cannot flake, and work that grows with the input's size rather than the budget (the 2^n
 * chains these generators make took seconds to minutes) still fails it.
 */
const STALL_MS = 1_000;

/** Milliseconds of this thread's CPU time since `since`. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.threadCpuUsage(since);
  return (used.user + used.system) / 1000;
}

const catastrophic = fc.constantFrom(
  '^(a+)+$',
  '^(a|a)*$',
  '^(a|aa)+$',
  '(x+x+)+y',
  '^(\\w+\\s?)*$',
  '^(.*a){12}$',
  '^([a-z]+)*[0-9]$',
  '(?=a)a',
  '(a)\\1',
  '[',
  'a{1000}a{1000}',
  '\\u00e9+',
);
const fragmentPattern = fc
  .array(fc.constantFrom('(', ')', 'a', 'a+', '*', '?', '|', '.', '\\d', '{2,}', '[a-z]', '^', '$', '(?:', '(?!'), {
    maxLength: 24,
  })
  .map((parts) => parts.join(''));
const pattern = fc.oneof(catastrophic, fragmentPattern);

const leaf = fc.oneof(
  fc.record({ type: fc.constant('string'), pattern }),
  fc.constantFrom({ type: 'string' }, { type: 'integer', maximum: 5 }, { $ref: '#' }, {}),
);
const { schema } = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({
      type: fc.constant('object'),
      properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('schema')),
    }),
    fc.record({ patternProperties: fc.dictionary(pattern, tie('schema'), { maxKeys: 2 }) }),
    fc.record({ type: fc.constant('array'), items: tie('schema') }),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
  ),
}));

/** Raw JSON nested `depth` times around `inner` (built as text: too deep for JSON.stringify). */
const wrapped = (depth: number, open: string, inner: string, close: string) =>
  `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
const rawSchema = fc.oneof(
  { arbitrary: schema.map((s) => JSON.stringify(s)), weight: 3 },
  fc
    .tuple(fc.integer({ min: 1, max: 200 }), schema)
    .map(([depth, inner]) => wrapped(depth, '{"items":', JSON.stringify(inner), '}')),
  fc.integer({ min: 1000, max: 5000 }).map((depth) => wrapped(depth, '{"not":', '{}', '}')),
);
/** Answers that put a string made to backtrack where the generated schemas look: values and keys. */
const evil = fc.integer({ min: 25, max: 20_000 }).map((n) => `${'a'.repeat(n)}!`);
const rawAnswer = fc.oneof(
  evil.map((e) => JSON.stringify(e)),
  evil.map((e) => JSON.stringify([e, [e], [[e]]])),
  evil.map((e) => JSON.stringify({ a: e, b: { a: e, b: e, c: e }, c: [e], [e]: e })),
  fc.integer({ min: 1, max: 5000 }).map((depth) => wrapped(depth, '[', '"a"', ']')),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc.constantFrom('not json', ''),
);
const seed = fc.oneof(
  { arbitrary: fc.constant('7'), weight: 6 },
  { arbitrary: fc.constantFrom('1e309', '-1e400', '123456789012345678901234567890'), weight: 1 },
);
const rawBody = fc
  .record({
    schema: rawSchema,
    toolSchema: fc.oneof({ arbitrary: fc.constant('{"type":"object"}'), weight: 3 }, rawSchema),
    seed,
    toolChoice: fc.constantFrom(
      '"auto"',
      '"required"',
      '{"type":"function","function":{"name":"f"}}',
      '"none"',
      'null',
      '{"type":"function","function":{"name":"nope"}}',
    ),
    guardrails: fc.oneof({ arbitrary: fc.constant('["schema_validation"]'), weight: 4 }, fc.constant('[]')),
  })
  .map(
    (b) =>
      `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"seed":${b.seed},` +
      `"tools":[{"type":"function","function":{"name":"f","parameters":${b.toolSchema}}}],` +
      (b.toolChoice === 'null' ? '' : `"tool_choice":${b.toolChoice},`) +
      `"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${b.schema}}},` +
      `"guardrails":{"enabled":${b.guardrails}}}`,
  );

const completion = (content: string): ChatCompletion => ({
  id: 'c',
  object: 'chat.completion',
  created: 0,
  model: 'gpt',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

/** One request as the gateway sees it, up to the guarded answer; the synchronous work is timed. */
async function serve(raw: string, answer: string): Promise<{ stalledMs: number; error?: unknown; answered?: true }> {
  const signal = new AbortController().signal;
  const moderator = localModerator();
  let started = process.threadCpuUsage();
  let stalledMs = 0;
  try {
    const body = validate(chatRequestValidator, parseJsonBody(raw));
    checkChatRequest(body);
    const enabled = body.guardrails?.enabled ?? [];
    // Nothing in these awaits waits for I/O (the pattern engine is loaded by then), so all the
    // CPU time they take is synchronous work holding the event loop.
    await guardRequest(body, enabled, moderator, signal);
    stalledMs = cpuMs(started);
    started = process.threadCpuUsage();
    await guardAnswer(completion(answer), enabled, body, moderator, signal);
    stalledMs = Math.max(stalledMs, cpuMs(started));
    return { stalledMs, answered: true };
  } catch (error) {
    return { stalledMs: Math.max(stalledMs, cpuMs(started)), error };
  }
}

beforeAll(async () => {
  // The first compilations pay for V8's warm-up (once per instance), which no later request does.
  const warm = (schema: unknown) =>
    `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"guardrails":{"enabled":["schema_validation"]},` +
    `"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${JSON.stringify(schema)}}}}`;
  for (const sample of fc.sample(schema, { numRuns: 30, seed: 1 })) await serve(warm(sample), '["a"]');
});

test('no pathological body escapes as a 5xx or stalls the event loop', async () => {
  let slowest = 0;
  const outcomes = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(rawBody, rawAnswer, async (raw, answer) => {
      const { stalledMs, error, answered } = await serve(raw, answer);
      slowest = Math.max(slowest, stalledMs);
      // Body validation fails as HTTP, the chat core in domain terms: both must be a 400.
      const failure = error instanceof ChatError ? httpErrorOf(error) : error;
      const outcome = answered ? 'pass' : failure instanceof HttpError ? failure.code : 'other';
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      if (error !== undefined) {
        expect(failure).toBeInstanceOf(HttpError);
        expect((failure as HttpError).status).toBe(400);
      }
      expect(stalledMs).toBeLessThan(STALL_MS);
    }),
    { numRuns: 150 },
  );
  expect(slowest).toBeLessThan(STALL_MS);
  // The generators must reach the answer check, not only the request's validation. Of 150 runs
  // about 11% fail the check and 15% pass it (means of 16 and 22): more than 2 of each is
  // missed about once in 100,000 runs, where more than 5 failed a clean run.
  expect(outcomes.get('SCHEMA_VALIDATION_FAILED') ?? 0).toBeGreaterThan(2);
  expect(outcomes.get('pass') ?? 0).toBeGreaterThan(2);
}, 60_000);

/**
 * Adversarial shapes: schemas whose plain recursive evaluation fans out (each link of a chain of
 * `$ref`s applying the next link twice or more, through every applicator), and answers that make
 * uniqueness, membership and wide alternatives expensive. Each must cost its bounded share of
 * CPU whatever the combination. Answers stay at a few thousand values here: under jest's module
 * sandbox the evaluator runs several times slower than on plain Node, so the CPU of a check
 * that spends the whole step budget is measured by `npm run bench -- schema` instead, and its
 * growth by steps in test/unit/chat/guardrails/schema-evaluator.test.ts.
 */
const applicator = fc.constantFrom('anyOf', 'oneOf', 'allOf', 'not', 'if', 'dependentSchemas', 'patternProperties');
function linkOf(kind: string, next: string, fanOut: number): Record<string, unknown> {
  const refs = Array.from({ length: fanOut }, () => ({ $ref: next }));
  switch (kind) {
    case 'not':
      return { not: { not: { $ref: next } }, anyOf: refs };
    case 'if':
      return { if: { $ref: next }, then: { $ref: next }, else: { $ref: next } };
    case 'dependentSchemas':
      return { dependentSchemas: Object.fromEntries(refs.map((ref, i) => [`k${i}`, ref])), allOf: refs };
    case 'patternProperties':
      return { patternProperties: { '^k': { $ref: next }, '.*': { $ref: next } }, anyOf: refs };
    default:
      return { [kind]: [...refs, { type: 'null' }] };
  }
}
const fanOutSchema = fc
  .tuple(fc.array(applicator, { minLength: 8, maxLength: 60 }), fc.integer({ min: 2, max: 4 }), fc.boolean())
  .map(([kinds, fanOut, throughItems]) => {
    const $defs: Record<string, unknown> = {};
    kinds.forEach((kind, i) => ($defs[`a${i}`] = linkOf(kind, `#/$defs/a${i + 1}`, fanOut)));
    // The last link recurses through items or properties, so deep answers multiply the fan-out.
    $defs[`a${kinds.length}`] = throughItems
      ? { type: ['array', 'integer'], items: { $ref: '#/$defs/a0' } }
      : { type: ['object', 'integer'], additionalProperties: { $ref: '#/$defs/a0' } };
    return { $defs, $ref: '#/$defs/a0' };
  })
  .filter((schema) => JSON.stringify(schema).length < 30_000);
const heavySchema = fc.oneof(
  fanOutSchema,
  fc.constant({ type: 'array', uniqueItems: true }),
  fc.constant({ type: 'array', items: { enum: Array.from({ length: 300 }, (_, i) => ({ k: i })) } }),
  fc.integer({ min: 2, max: 10 }).map((n) => ({
    type: 'array',
    items: { anyOf: Array.from({ length: n }, (_, i) => ({ type: 'object', required: [`k${i}`] })) },
  })),
);
const heavyAnswer = fc.oneof(
  fc.constantFrom('1', 'null', '{"k0":1,"k1":{"k0":[1]}}'),
  fc.integer({ min: 1, max: 1_500 }).map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ k: i })))),
  fc.integer({ min: 1, max: 3_000 }).map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => i % 300))),
  fc.integer({ min: 1, max: 100 }).map((depth) => wrapped(depth, '[', '1', ']')),
  fc.integer({ min: 1, max: 100 }).map((depth) => wrapped(depth, '{"k0":', '1', '}')),
);

test('adversarial schemas and answers: linear or budgeted, never a 5xx or a stall', async () => {
  // As above: V8 compiles the evaluator's paths for these shapes once per instance.
  for (const [schema, answer] of fc.sample(fc.tuple(heavySchema, heavyAnswer), { numRuns: 20, seed: 2 }))
    await serve(
      `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"guardrails":{"enabled":["schema_validation"]},` +
        `"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${JSON.stringify(schema)}}}}`,
      answer,
    );
  let slowest = 0;
  await fc.assert(
    fc.asyncProperty(heavySchema, heavyAnswer, async (schema, answer) => {
      const raw =
        `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"guardrails":{"enabled":["schema_validation"]},` +
        `"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${JSON.stringify(schema)}}}}`;
      const { stalledMs, error } = await serve(raw, answer);
      slowest = Math.max(slowest, stalledMs);
      if (error !== undefined) {
        const failure = error instanceof ChatError ? httpErrorOf(error) : error;
        expect(failure).toBeInstanceOf(HttpError);
        expect((failure as HttpError).status).toBe(400);
      }
      expect(stalledMs).toBeLessThan(STALL_MS);
    }),
    { numRuns: 120 },
  );
  expect(slowest).toBeLessThan(STALL_MS);
}, 120_000);
