import { loadLinearRegExp } from '../lambdas/chat/guardrails/linear-regexp.js';
import { evaluateSchema, MAX_EVALUATION_STEPS } from '../lambdas/chat/guardrails/schema-evaluator.js';
import { compileSchema } from '../lambdas/chat/guardrails/schema-validation.js';

/**
 * `npm run bench -- schema`: what a step of the schema_validation budget costs in CPU for the
 * shapes that cost most per step, and so what a check that spends the whole budget holds the
 * event loop for. The budget's documented bound (schema-evaluator.ts) rests on these figures.
 */
const TARGET_MS = 50;

interface Shape {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  readonly answer: (n: number) => unknown;
}

const chain = (links: number) => {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < links; i++)
    $defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }, { type: 'null' }] };
  $defs[`a${links}`] = { type: 'string' };
  return { $defs, type: 'array', items: { $ref: '#/$defs/a0' } };
};

const SHAPES: readonly Shape[] = [
  {
    name: 'objects with properties',
    schema: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } } },
    answer: (n) => Array.from({ length: n }, (_, i) => ({ a: `v${i}`, b: i })),
  },
  {
    name: 'uniqueItems over objects',
    schema: { type: 'array', uniqueItems: true },
    answer: (n) => Array.from({ length: n }, (_, i) => ({ id: i, tags: ['x', i % 7] })),
  },
  {
    name: 'uniqueItems over numbers',
    schema: { type: 'array', uniqueItems: true },
    answer: (n) => Array.from({ length: n }, (_, i) => i),
  },
  {
    name: 'anyOf of 10, every branch failing',
    schema: {
      type: 'array',
      items: { anyOf: Array.from({ length: 10 }, (_, i) => ({ type: 'object', required: [`k${i}`] })) },
    },
    answer: (n) => Array.from({ length: n }, (_, i) => ({ k: i })),
  },
  { name: 'shared $ref chain, failing', schema: chain(60), answer: (n) => Array.from({ length: n }, () => 1) },
];

export async function benchSchemaValidation(): Promise<void> {
  await loadLinearRegExp();
  console.log('\nschema_validation: CPU per budget step, and for a whole budget');
  for (const shape of SHAPES) {
    const program = compileSchema(shape.schema);
    const answer = shape.answer(20_000);
    const runs: number[] = [];
    let steps = 0;
    for (let run = 0; run < 7; run++) {
      const started = process.threadCpuUsage();
      try {
        steps = evaluateSchema(program, answer, { steps: Number.MAX_SAFE_INTEGER }).steps;
      } finally {
        const used = process.threadCpuUsage(started);
        runs.push((used.user + used.system) / 1000);
      }
    }
    const median = runs.sort((a, b) => a - b)[3]!;
    const perStep = (median * 1e6) / steps;
    const wholeBudget = (perStep * MAX_EVALUATION_STEPS) / 1e6;
    const verdict = wholeBudget <= TARGET_MS ? 'PASS' : 'MISS';
    console.log(
      `  ${shape.name.padEnd(36)} ${perStep.toFixed(0).padStart(4)} ns/step  ` +
        `whole budget ${wholeBudget.toFixed(1).padStart(5)} ms  ${verdict} (target ${TARGET_MS} ms)`,
    );
  }
}
