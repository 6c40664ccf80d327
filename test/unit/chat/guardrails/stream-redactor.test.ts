import fc from 'fast-check';
import { redactPii, type ScanWork } from '../../../../lambdas/chat/guardrails/pii.js';
import { MAX_PENDING, StreamRedactor } from '../../../../lambdas/chat/guardrails/stream-redactor.js';
import { anyPii, HOSTILE_UNITS, hostileText } from './generators.js';

function streamed(parts: readonly string[], work?: ScanWork): string {
  const redactor = new StreamRedactor(work);
  return parts.map((p) => redactor.push(p)).join('') + redactor.flush();
}

/** `text` as deltas of `size` characters (the last one shorter). */
function pieces(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += size) parts.push(text.slice(at, at + size));
  return parts;
}

const SAMPLES = [
  'Contact jane.doe@example.com or (555) 123-4567 today.',
  'UK +44 20 7946 0958, SSN 123-45-6789, NINO QQ 12 34 56 C, card 4111 1111 1111 1111.',
  'Hosts 192.168.0.1, 2001:db8::1 and ::ffff:192.0.2.128; invalid 4111 1111 1111 1112.',
  '{"email":"a@b.io","note":"x\\njane@x.org","ip":"10.1.2.3","phone":"+1 (555) 123-4567"}',
  'Plain prose without anything to hide, 2024-01-15, $1,299.99, v1.2.3.',
  'edge@ends.with',
  '4111111111111111',
];

test.each(SAMPLES)('splitting %j at every position equals redacting it whole', (text) => {
  const whole = redactPii(text).text;
  for (let i = 0; i <= text.length; i++) expect(streamed([text.slice(0, i), text.slice(i)])).toBe(whole);
  expect(streamed([...text])).toBe(whole);
});

/** Text dense in PII, fragments of it and the punctuation around it: where splits are hardest. */
const fragment = fc.oneof(
  anyPii,
  fc.constantFrom(
    ' ',
    ', ',
    '\n',
    '\\n',
    '@',
    '.',
    ':',
    '::',
    '-',
    '+',
    '(',
    ')',
    '1',
    '12',
    '555',
    '4111',
    '0',
    'a',
    'Q',
    'com',
    'X1234567L',
  ),
  fc.string({ maxLength: 8 }),
);
const denseText = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(''));

test('property: random split points give the same result as whole-text redaction', () => {
  fc.assert(
    fc.property(denseText, fc.array(fc.nat(), { maxLength: 10 }), (text, cuts) => {
      const bounds = [0, ...cuts.map((c) => c % (text.length + 1)).sort((a, b) => a - b), text.length];
      const parts = bounds.slice(1).map((end, i) => text.slice(bounds[i], end));
      expect(streamed(parts)).toBe(redactPii(text).text);
    }),
    { numRuns: 1000 },
  );
});

test('property: character-by-character streaming equals whole-text redaction', () => {
  fc.assert(
    fc.property(denseText, (text) => expect(streamed([...text])).toBe(redactPii(text).text)),
    { numRuns: 300 },
  );
});

test('holds back only the tail that could still grow into a match', () => {
  const redactor = new StreamRedactor();
  expect(redactor.push('Hello there, the weather is nice. ')).toBe('Hello there, the weather is nice. ');
  expect(redactor.pending).toBe(0);
  expect(redactor.push('Write to jane')).toBe('Write to ');
  expect(redactor.push('.doe@exam')).toBe('');
  expect(redactor.push('ple.com soon')).toBe('[REDACTED_EMAIL] ');
  expect(redactor.flush()).toBe('soon');
  expect(redactor.found).toBe(1);
});

test('the held tail is bounded however long an unbroken run gets', () => {
  const redactor = new StreamRedactor();
  let out = '';
  for (let i = 0; i < 2000; i++) {
    out += redactor.push('abc');
    expect(redactor.pending).toBeLessThan(MAX_PENDING);
  }
  expect(out + redactor.flush()).toBe('abc'.repeat(2000));
});

test('never holds what is already decided', () => {
  const done = new StreamRedactor();
  expect(done.push('done. ')).toBe('done. ');
  expect(done.pending).toBe(0);
  const call = new StreamRedactor();
  expect(call.push('call 555')).toBe('call ');
  expect(call.pending).toBe(3);
  // "555 " may still become "555 123 4567"; a ";" ends every detector's reading.
  expect(call.push(' ')).toBe('');
  expect(call.push('; ')).toBe('555 ; ');
});

test('property: hostile text split at every delta size equals whole-text redaction', () => {
  fc.assert(
    fc.property(
      hostileText.map((text) => text.slice(0, 400)),
      (text) => {
        const whole = redactPii(text).text;
        for (let size = 1; size <= text.length; size++) expect(streamed(pieces(text, size))).toBe(whole);
      },
    ),
    { numRuns: 30 },
  );
});

test('property: long hostile text in deltas of any sizes equals whole-text redaction, holding little', () => {
  fc.assert(
    fc.property(
      hostileText,
      fc.array(fc.integer({ min: 1, max: 80 }), { minLength: 1, maxLength: 8 }),
      (text, sizes) => {
        const redactor = new StreamRedactor();
        let out = '';
        for (let at = 0, i = 0; at < text.length; i++) {
          const size = sizes[i % sizes.length]!;
          out += redactor.push(text.slice(at, at + size));
          at += size;
          expect(redactor.pending).toBeLessThan(MAX_PENDING);
        }
        expect(out + redactor.flush()).toBe(redactPii(text).text);
      },
    ),
    { numRuns: 150 },
  );
});

/**
 * Work is counted in characters examined (see ScanWork): the stream's must stay within a small
 * factor of the whole-text scan's whatever the deltas, one character each included. Measured at
 * most 4.3 times over these texts; a redactor that rescans what it holds back does hundreds.
 */
const WORK_FACTOR = 6;

describe('work: streaming costs a small factor of redacting the whole text, however it is split', () => {
  const streamedWork = (text: string, size: number) => {
    const work = { examined: 0 };
    streamed(pieces(text, size), work);
    return work.examined;
  };
  const wholeWork = (text: string) => {
    const work = { examined: 0 };
    redactPii(text, work);
    return Math.max(work.examined, text.length);
  };

  test.each(HOSTILE_UNITS)('%j repeated, in deltas of 1, 2, 3, 7, 64 and 4096 characters', (unit) => {
    const text = unit.repeat(Math.ceil(6000 / unit.length));
    const whole = wholeWork(text);
    const worst = Math.max(...[1, 2, 3, 7, 64, 4096].map((size) => streamedWork(text, size) / whole));
    expect(worst).toBeLessThanOrEqual(WORK_FACTOR);
  });

  test('property: hostile text in deltas of any size', () => {
    fc.assert(
      fc.property(hostileText, fc.integer({ min: 1, max: 40 }), (text, size) => {
        expect(streamedWork(text, size)).toBeLessThanOrEqual(WORK_FACTOR * wholeWork(text));
      }),
      { numRuns: 150 },
    );
  });

  test('four times the text costs four times the work, one-character deltas included', () => {
    for (const unit of ['(1) ', '1 ', 'a.', '+1(1)1', '4111 ']) {
      const text = unit.repeat(Math.ceil(3000 / unit.length));
      for (const size of [1, 2, 5]) {
        const ratio = streamedWork(text.repeat(4), size) / streamedWork(text, size);
        expect(ratio).toBeGreaterThan(3);
        expect(ratio).toBeLessThan(4.4);
      }
    }
  });
});
