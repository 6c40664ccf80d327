import fc from 'fast-check';
import { EMBEDDING_MODELS, priceOf, resolveEmbeddingModel } from '../../../lambdas/catalog/model-catalog.js';
import { EmbeddingsError } from '../../../lambdas/embeddings/embeddings-errors.js';
import {
  answerBytesBound,
  embeddingsJobOf,
  embeddingsRequestValidator,
  MAX_ANSWER_BYTES,
  MAX_BYTES_PER_TOKEN,
  MAX_INPUTS,
  type EmbeddingsRequestBody,
} from '../../../lambdas/embeddings/embeddings-request.js';
import { HttpError } from '../../../lambdas/http/errors.js';
import { validate } from '../../../lambdas/http/validation.js';
import { embeddingCostBoundMicroUsd } from '../../../lambdas/usage/call-cost-bound.js';

/** The request's checks: every refusal is a 400 naming the field, whatever the body. */

const small = resolveEmbeddingModel('text-embedding-3-small')!;
const gemini = resolveEmbeddingModel('gemini-embedding-001')!;

/** The field a refusal names, or undefined when the body passed both checks. */
function refusal(body: unknown): string | undefined {
  try {
    const valid = validate(embeddingsRequestValidator, body);
    const model = resolveEmbeddingModel(valid.model);
    if (model) embeddingsJobOf(valid, model);
    return undefined;
  } catch (error) {
    if (error instanceof HttpError) {
      expect(error.status).toBe(400);
      return error.param;
    }
    if (error instanceof EmbeddingsError) {
      expect(error.kind).toBe('invalid_request');
      return error.field;
    }
    throw error;
  }
}

describe('the catalog', () => {
  it('prices each model and each route at the list price: $0.02, $0.13 and $0.15 per million input tokens', () => {
    const expected: Record<string, number> = {
      'text-embedding-3-small': 20_000,
      'text-embedding-3-large': 130_000,
      'gemini-embedding-001': 150_000,
    };
    for (const model of EMBEDDING_MODELS) {
      for (const id of [model.id, ...model.routes.map((r) => r.model)])
        expect([id, priceOf(id)]).toEqual([id, { inputPerMTok: expected[model.id], outputPerMTok: 0 }]);
    }
  });

  it('resolves ids, route ids and Google’s resource names; nothing else', () => {
    expect(resolveEmbeddingModel(' openai/text-embedding-3-large ')?.id).toBe('text-embedding-3-large');
    expect(resolveEmbeddingModel('models/gemini-embedding-001')?.id).toBe('gemini-embedding-001');
    expect(resolveEmbeddingModel('google/gemini-embedding-001')?.id).toBe('gemini-embedding-001');
    for (const name of ['gpt', 'gpt-5', 'TEXT-EMBEDDING-3-SMALL', 'text-embedding-ada-002', ''])
      expect(resolveEmbeddingModel(name)).toBeUndefined();
  });

  it('bounds a call’s cost by its bytes at the input rate, rounded up', () => {
    expect(embeddingCostBoundMicroUsd('text-embedding-3-small', ['a'.repeat(49), 'é'])).toBe(2); // 51 × 0.02 = 1.02
    expect(embeddingCostBoundMicroUsd('gemini-embedding-001', ['x'.repeat(1_000_000)])).toBe(150_000);
    expect(embeddingCostBoundMicroUsd('no-such-model', ['x'])).toBe(0);
  });
});

describe('limits', () => {
  it('takes a string, a list of strings, and the model’s defaults', () => {
    expect(refusal({ model: 'text-embedding-3-small', input: 'x' })).toBeUndefined();
    const job = embeddingsJobOf({ model: 'gemini-embedding-001', input: ['a', 'b'] }, gemini);
    expect(job).toEqual({ texts: ['a', 'b'], dimensions: 3072, dimensionsAsked: false, encoding: 'float' });
  });

  it.each([
    [
      {
        model: 'text-embedding-3-small',
        input: Array(MAX_INPUTS).fill('x'),
        dimensions: 256,
        encoding_format: 'base64',
      },
      undefined,
    ],
    [{ model: 'text-embedding-3-small', input: Array(MAX_INPUTS + 1).fill('x') }, 'input'],
    [{ model: 'text-embedding-3-small', input: 'x'.repeat(8191 * MAX_BYTES_PER_TOKEN) }, undefined],
    [{ model: 'text-embedding-3-small', input: ['a', 'x'.repeat(8191 * MAX_BYTES_PER_TOKEN + 1)] }, 'input[1]'],
    [{ model: 'gemini-embedding-001', input: 'é'.repeat(2048 * 4 + 1) }, 'input'],
    [{ model: 'text-embedding-3-small', input: Array(17).fill('x'.repeat(62_000)) }, 'input'],
    [{ model: 'text-embedding-3-small', input: 'x'.repeat(65_537) }, 'input'],
    [{ model: 'text-embedding-3-small', input: 'x', dimensions: 1536 }, undefined],
    [{ model: 'text-embedding-3-small', input: 'x', dimensions: 1537 }, 'dimensions'],
    [{ model: 'text-embedding-3-small', input: 'x', dimensions: 0 }, 'dimensions'],
    [{ model: 'gemini-embedding-001', input: 'x', dimensions: 127 }, 'dimensions'],
    [{ model: 'text-embedding-3-small', input: [['x']] }, 'input[0]'],
    [{ model: 'text-embedding-3-small', input: { text: 'x' } }, 'input'],
    [{ model: 'text-embedding-3-small', input: 'x', user: 'u'.repeat(257) }, 'user'],
    [{ model: 7, input: 'x' }, 'model'],
  ])('%#: %s', (body, field) => {
    expect(refusal(body)).toBe(field);
  });

  it('refuses an answer that would not fit, and says base64 would', () => {
    // 2,048 vectors of 1,536 floats are ~75 MB as JSON; as base64 ~17 MB: both refused.
    const floats = { model: 'text-embedding-3-small', input: Array(2048).fill('x') } satisfies EmbeddingsRequestBody;
    expect(() => embeddingsJobOf(floats, small)).toThrow(/encoding_format base64/);
    // 600 of them as base64 fit within 5 MB.
    expect(answerBytesBound(600, 1536, 'base64')).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(refusal({ ...floats, input: Array(600).fill('x'), encoding_format: 'base64' })).toBeUndefined();
  });

  it('bounds the answer truly: base64 of d float32s is 4⌈4d/3⌉ characters at most', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3072 }), (d) => {
        const encoded = Buffer.alloc(d * 4).toString('base64').length;
        expect(encoded).toBeLessThanOrEqual(4 * Math.ceil((d * 4) / 3));
      }),
    );
  });

  it('never fails but with a 400 naming a field, whatever the body', () => {
    const text = fc.oneof(fc.string({ maxLength: 20 }), fc.constant(''), fc.string({ unit: 'grapheme', maxLength: 5 }));
    const body = fc.record(
      {
        model: fc.oneof(fc.constantFrom(...EMBEDDING_MODELS.map((m) => m.id), 'gpt'), fc.anything()),
        input: fc.oneof(text, fc.array(text, { maxLength: 5 }), fc.array(fc.integer()), fc.anything()),
        encoding_format: fc.oneof(fc.constantFrom('float', 'base64', 'int8'), fc.anything()),
        dimensions: fc.oneof(fc.integer({ min: -10, max: 4000 }), fc.double(), fc.anything()),
        user: fc.anything(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(body, (value) => {
        const field = refusal(value);
        if (field !== undefined) expect(field.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });
});
