import fc from 'fast-check';
import { redactPii } from '../../../lambdas/gateway/guardrails/pii.js';
import { holdPoint, StreamRedactor } from '../../../lambdas/gateway/guardrails/stream-redactor.js';
import { anyPii } from './generators.js';

function streamed(parts: readonly string[]): string {
  const redactor = new StreamRedactor();
  return parts.map((p) => redactor.push(p)).join('') + redactor.flush();
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
    expect(redactor.pending).toBeLessThanOrEqual(360);
  }
  expect(out + redactor.flush()).toBe('abc'.repeat(2000));
});

test('holdPoint never holds what is already decided', () => {
  expect(holdPoint('done. ', 0)).toBe(6);
  expect(holdPoint('call 555', 0)).toBe(5);
  expect(holdPoint('call 555', 7)).toBe(7);
});
