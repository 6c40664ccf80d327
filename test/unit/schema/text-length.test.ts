import fc from 'fast-check';
import { createRequire } from 'node:module';
import {
  characterCount,
  exceedsCharacters,
  leadingCharacters,
  trailingCharacters,
} from '../../../lambdas/schema/text-length.js';

/**
 * One definition of "character" for the whole API: a code point, counted as Ajv counts
 * `maxLength` (its ucs2length, lone surrogates one each), so hand checks and schemas agree.
 */
const require = createRequire(import.meta.url);
const ajvLength = (require('ajv/dist/runtime/ucs2length') as { default: (text: string) => number }).default;

/** Any UTF-16 units, lone surrogates included, mixed with whole astral characters. */
const anyText = fc.array(
  fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
    fc.integer({ min: 0x10000, max: 0x10ffff }).map((point) => String.fromCodePoint(point)),
    fc.constantFrom('\uD83D', '\uDE00', ' ', 'a'),
  ),
  { maxLength: 40 },
);

const EMOJI = '😀';

test('characterCount counts code points exactly as Ajv maxLength does', () => {
  fc.assert(
    fc.property(anyText, (parts) => {
      const text = parts.join('');
      expect(characterCount(text)).toBe(ajvLength(text));
      expect(characterCount(text)).toBe([...text].length);
    }),
  );
  expect(characterCount(EMOJI.repeat(1000))).toBe(1000);
  expect(EMOJI.repeat(1000).length).toBe(2000);
});

test('exceedsCharacters agrees with the count on either side of any limit', () => {
  fc.assert(
    fc.property(anyText, fc.nat({ max: 50 }), (parts, max) => {
      const text = parts.join('');
      expect(exceedsCharacters(text, max)).toBe(characterCount(text) > max);
    }),
  );
});

test('leading and trailing characters never split a surrogate pair and keep whole characters', () => {
  fc.assert(
    fc.property(anyText, fc.nat({ max: 50 }), (parts, n) => {
      const text = parts.join('');
      const head = leadingCharacters(text, n);
      const tail = trailingCharacters(text, n);
      const whole = Math.min(n, characterCount(text));
      expect(text.startsWith(head)).toBe(true);
      expect(text.endsWith(tail)).toBe(true);
      expect(characterCount(head)).toBe(whole);
      expect(characterCount(tail)).toBe(whole);
      expect([...head]).toEqual([...text].slice(0, whole));
      expect([...tail]).toEqual(whole === 0 ? [] : [...text].slice(-whole));
    }),
  );
  expect(leadingCharacters(`ab${EMOJI}`, 3)).toBe(`ab${EMOJI}`);
  expect(trailingCharacters(`sk-${EMOJI}${EMOJI}12`, 4)).toBe(`${EMOJI}${EMOJI}12`);
});
