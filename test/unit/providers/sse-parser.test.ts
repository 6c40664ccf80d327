import fc from 'fast-check';
import { openAiCompatibleAdapter } from '../../../lambdas/providers/openai-compatible/openai-compatible-adapter.js';
import { SseParser, type ParseWork, type SseEvent } from '../../../lambdas/providers/sse-parser.js';
import { textOf } from './adapter-support.js';

/**
 * The SSE parser on bodies split every way bytes can arrive, and the work it does: each
 * character is examined a bounded number of times however long its line and however small the
 * pieces it arrives in.
 */

const encoder = new TextEncoder();

/** `bytes` pushed in pieces of `sizes` bytes (cycling), then the end. */
function parse(bytes: Uint8Array, sizes: readonly number[], work?: ParseWork): SseEvent[] {
  const parser = new SseParser(work);
  const events: SseEvent[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    events.push(...parser.push(bytes.subarray(at, at + size)));
    at += size;
  }
  return [...events, ...parser.end()];
}

/** Line text: multi-byte characters (split across pieces), colons and spaces, no line breaks. */
const lineText = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', ' ', ':', '{', '"', 'x'), maxLength: 12 });

const frame = fc.record({
  event: fc.option(fc.stringMatching(/^[a-z_]{1,12}$/), { nil: undefined }),
  data: fc.array(lineText, { minLength: 1, maxLength: 3 }),
  comment: fc.boolean(),
  eol: fc.constantFrom('\n', '\r\n', '\r'),
});
type Frame = typeof frame extends fc.Arbitrary<infer T> ? T : never;

const wire = (frames: readonly Frame[]) =>
  frames
    .map(
      ({ event, data, comment, eol }) =>
        (comment ? `: keep-alive${eol}` : '') +
        (event === undefined ? '' : `event: ${event}${eol}`) +
        data.map((line) => `data: ${line}${eol}`).join('') +
        eol,
    )
    .join('');

const expected = (frames: readonly Frame[]): SseEvent[] =>
  frames.map(({ event, data }) => (event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') }));

test('property: the same events however the bytes are split, empty pieces and split characters included', () => {
  fc.assert(
    fc.property(
      fc.array(frame, { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat({ max: 9 }), { minLength: 1, maxLength: 6 }),
      (frames, sizes) => {
        const bytes = encoder.encode(wire(frames));
        // A zero size pushes an empty piece; the cycle still moves on because another size is not zero.
        const pieces = sizes.some((s) => s > 0) ? sizes : [...sizes, 1];
        expect(parse(bytes, pieces)).toEqual(expected(frames));
      },
    ),
    { numRuns: 500 },
  );
});

test('a \\r ending one piece and a \\n opening the next, with an empty piece between, end one line', () => {
  const parser = new SseParser();
  const events = [
    ...parser.push('data: a\r'),
    ...parser.push(new Uint8Array(0)),
    ...parser.push('\ndata: b\n\n'),
    ...parser.end(),
  ];
  expect(events).toEqual([{ data: 'a\nb' }]);
});

describe('work: each character is examined a bounded number of times', () => {
  // Line lengths keep a parser that rescans its held line on every piece within seconds, so the
  // test can show it failing; the bound does not depend on them.
  test.each([
    [1, 20_000],
    [7, 50_000],
    [64, 200_000],
    [1024, 1_000_000],
  ])('one event of a line, in pieces of %i bytes, %i characters long', (size, length) => {
    const bytes = encoder.encode(`data: ${JSON.stringify({ content: 'x'.repeat(length) })}\n\n`);
    const work = { examined: 0 };
    const events = parse(bytes, [size], work);
    expect(events).toHaveLength(1);
    expect(work.examined / bytes.length).toBeLessThanOrEqual(2);
  });

  test('a large, fast OpenAI stream in small pieces: parsed and translated whole, in linear work', () => {
    const event = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'gpt-5',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        usage: null,
      })}\n\n`;
    const words = Array.from({ length: 20_000 }, (_, i) => `${i === 0 ? '' : ' '}word${i + 1}`);
    const argumentsText = JSON.stringify({ notes: 'y'.repeat(300_000) });
    const body =
      words.map((content) => event({ content })).join('') +
      event({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'save', arguments: '' } }] }) +
      event({ tool_calls: [{ index: 0, function: { arguments: argumentsText } }] }) +
      event({}, 'tool_calls') +
      'data: [DONE]\n\n';
    const bytes = encoder.encode(body);
    const work = { examined: 0 };
    const translator = openAiCompatibleAdapter.createStreamTranslator({
      provider: 'openai',
      baseUrl: 'http://unused',
      apiKey: 'k',
      model: 'gpt-5',
    });
    const chunks = parse(bytes, [97, 1, 512], work).flatMap((e) => translator.onEvent(e));
    chunks.push(...translator.onEnd());
    expect(textOf(chunks)).toBe(words.join(''));
    const argumentsOut = chunks
      .flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []))
      .map((call) => call.function?.arguments ?? '')
      .join('');
    expect(argumentsOut).toBe(argumentsText);
    expect(work.examined / bytes.length).toBeLessThanOrEqual(2);
  });
});
