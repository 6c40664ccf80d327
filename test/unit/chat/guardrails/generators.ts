import fc from 'fast-check';
import { luhnValid } from '../../../../lambdas/chat/guardrails/pii.js';

/** Generators of PII the `pii` guardrail must always find, in the formats it documents. */

export const digits = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));

export const email = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9](?:[a-z0-9._%+-]{0,20}[a-z0-9])?$/),
    fc.array(fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/), { minLength: 1, maxLength: 3 }),
    fc.stringMatching(/^[a-z]{2,6}$/),
    fc.boolean(),
  )
  .map(([local, labels, tld, upper]) => {
    const address = `${local}@${labels.join('.')}.${tld}`;
    return upper ? address.toUpperCase() : address;
  });

const exchange = fc.tuple(fc.integer({ min: 2, max: 9 }), digits(2)).map(([a, b]) => `${a}${b}`);

export const northAmericanPhone = fc
  .tuple(exchange, exchange, digits(4), fc.constantFrom('paren', 'dash', 'dot', 'space', 'plus1', 'one'))
  .map(([area, office, line, style]) => {
    switch (style) {
      case 'paren':
        return `(${area}) ${office}-${line}`;
      case 'dash':
        return `${area}-${office}-${line}`;
      case 'dot':
        return `${area}.${office}.${line}`;
      case 'space':
        return `${area} ${office} ${line}`;
      case 'plus1':
        return `+1 (${area}) ${office}-${line}`;
      default:
        return `1-${area}-${office}-${line}`;
    }
  });

export const internationalPhone = fc
  .tuple(
    fc.integer({ min: 1, max: 999 }),
    fc.array(fc.integer({ min: 2, max: 4 }).chain(digits), { minLength: 2, maxLength: 4 }),
    fc.constantFrom(' ', '-', '.', ''),
  )
  .filter(([cc, groups]) => {
    const count = String(cc).length + groups.join('').length;
    return count >= 8 && count <= 15;
  })
  .map(([cc, groups, sep]) => (sep === '' ? `+${cc}${groups.join('')}` : `+${cc} ${groups.join(sep)}`));

export const nationalPhone = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 9 }), digits(1), digits(4), digits(4))
    .map(([a, b, c, d]) => `0${a}${b} ${c} ${d}`),
  fc.tuple(fc.integer({ min: 1, max: 9 }), digits(3), digits(6)).map(([a, b, c]) => `0${a}${b} ${c}`),
  fc
    .tuple(
      fc.integer({ min: 1, max: 9 }),
      fc.array(digits(2), { minLength: 4, maxLength: 4 }),
      fc.constantFrom(' ', '.', '-'),
    )
    .map(([a, pairs, sep]) => `0${a}${sep}${pairs.join(sep)}`),
);

export const phone = fc.oneof(northAmericanPhone, internationalPhone, nationalPhone);

export function luhnComplete(partial: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(`${partial}${d}`)) return `${partial}${d}`;
  throw new Error('unreachable');
}

/** Groups of four (a short last group joins the one before), as cards are printed. */
export function groupCard(number: string, sep: string): string {
  if (sep === '') return number;
  const groups = number.match(/.{1,4}/g)!;
  if (groups.length > 1 && groups.at(-1)!.length < 3) groups.splice(-2, 2, groups.at(-2)! + groups.at(-1)!);
  return groups.join(sep);
}

export const cardNumber = fc
  .tuple(fc.integer({ min: 13, max: 19 }), fc.integer({ min: 3, max: 6 }), digits(18))
  .map(([length, first, body]) => luhnComplete(`${first}${body.slice(0, length - 2)}`));

export const card = fc.tuple(cardNumber, fc.constantFrom('', ' ', '-')).map(([number, sep]) => groupCard(number, sep));

export const ssn = fc
  .tuple(
    fc.integer({ min: 1, max: 899 }).filter((a) => a !== 666),
    fc.integer({ min: 1, max: 99 }),
    fc.integer({ min: 1, max: 9999 }),
  )
  .map(([a, g, s]) => `${String(a).padStart(3, '0')}-${String(g).padStart(2, '0')}-${String(s).padStart(4, '0')}`);

const upper = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
export const nino = fc
  .tuple(upper, upper, digits(6), fc.constantFrom('A', 'B', 'C', 'D'), fc.boolean())
  .map(([a, b, d, s, spaced]) =>
    spaced ? `${a}${b} ${d.slice(0, 2)} ${d.slice(2, 4)} ${d.slice(4)} ${s}` : `${a}${b}${d}${s}`,
  );

export const ipv4 = fc.ipV4();
/** `::` alone is the unspecified address, deliberately not treated as PII. */
export const ipv6 = fc.ipV6().filter((ip) => ip !== '::');

export const anyPii = fc.oneof(email, phone, card, ssn, nino, ipv4, ipv6);

/** A value in a sentence: random text, then punctuation, the value, punctuation, random text. */
export const embedded = (pii: fc.Arbitrary<string>) =>
  fc.tuple(
    fc.string({ maxLength: 30 }),
    fc.constantFrom(', ', '; ', '\n', ' | ', ' (', ': ', ' <'),
    pii,
    fc.constantFrom(', ', '; ', '\n', ' | ', '. ', ') ', '> '),
    fc.string({ maxLength: 30 }),
  );

/**
 * Fragments that partly look like PII: phone, card and national-ID digit groups with their
 * separators, IP octets and hex groups, email punctuation, JSON escapes. Repeated, every prefix
 * of a run could still become a match and few runs ever do: the text a redactor must keep
 * deciding and undeciding, where rescanning what it holds back would cost the most.
 */
export const HOSTILE_UNITS = [
  '(1) ',
  '1 ',
  '1-',
  '1.',
  '1',
  '12 ',
  '123 ',
  '123-',
  '123.',
  '1234 ',
  '4111 ',
  '123 45 ',
  '1-1 ',
  '+1 ',
  '+1-1',
  '+1(1)1',
  '00 ',
  '01 ',
  '(01) ',
  '1.1.1.1.',
  '255.',
  '@',
  'a@',
  '.@',
  'a.',
  'a.b@',
  'f:',
  '::1',
  '1:',
  'A1',
  'QQ 12 ',
  'X1',
  '\\n',
  '\\u0000',
  'abc',
  ' ',
] as const;

/** A unit repeated: up to a few thousand characters of one hostile pattern. */
export const hostileRun = fc
  .tuple(fc.constantFrom(...HOSTILE_UNITS), fc.integer({ min: 1, max: 600 }))
  .map(([unit, times]) => unit.repeat(times));

/** Hostile runs back to back, with real PII (which must still be found) between them. */
export const hostileText = fc
  .array(fc.oneof({ weight: 4, arbitrary: hostileRun }, { weight: 1, arbitrary: anyPii }), {
    minLength: 1,
    maxLength: 5,
  })
  .map((parts) => parts.join(''));
