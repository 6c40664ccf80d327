import fc from 'fast-check';
import { isIpv6, luhnValid, NATIONAL_IDS, PII_DETECTORS, redactPii } from '../../../../lambdas/chat/guardrails/pii.js';
import {
  anyPii,
  card,
  cardNumber,
  email,
  embedded,
  HOSTILE_UNITS,
  hostileText,
  ipv4,
  ipv6,
  nino,
  phone,
  ssn,
} from './generators.js';

const redacted = (text: string) => redactPii(text).text;

describe('positive examples', () => {
  test.each([
    ['jane.doe@example.com', '[REDACTED_EMAIL]'],
    ['Write to J.Smith+news@mail.example.co.uk today', 'Write to [REDACTED_EMAIL] today'],
    ['<ops_team@corp-mail.io>', '<[REDACTED_EMAIL]>'],
  ])('email %j', (text, expected) => expect(redacted(text)).toBe(expected));

  test.each([
    ['Call (555) 123-4567 now', 'Call [REDACTED_PHONE] now'],
    ['Call 555-123-4567.', 'Call [REDACTED_PHONE].'],
    ['Call 555.123.4567', 'Call [REDACTED_PHONE]'],
    ['Call 1-800-555-0199', 'Call [REDACTED_PHONE]'],
    ['London +44 20 7946 0958', 'London [REDACTED_PHONE]'],
    ['US +1 (555) 123-4567', 'US [REDACTED_PHONE]'],
    ['E.164 +14155552671', 'E.164 [REDACTED_PHONE]'],
    ['Berlin +49 (0)30 1234567', 'Berlin [REDACTED_PHONE]'],
    ['Paris +33 1 23 45 67 89', 'Paris [REDACTED_PHONE]'],
    ['UK 020 7946 0958', 'UK [REDACTED_PHONE]'],
    ['mobile 07700 900123', 'mobile [REDACTED_PHONE]'],
    ['FR 06 12 34 56 78', 'FR [REDACTED_PHONE]'],
    ['FR 01.23.45.67.89', 'FR [REDACTED_PHONE]'],
    ['AU (02) 9876 5432', 'AU [REDACTED_PHONE]'],
  ])('phone %j', (text, expected) => expect(redacted(text)).toBe(expected));

  test.each([
    ['SSN 123-45-6789', 'SSN [REDACTED_NATIONAL_ID]'],
    ['NINO QQ 12 34 56 C', 'NINO [REDACTED_NATIONAL_ID]'],
    ['NINO QQ123456C', 'NINO [REDACTED_NATIONAL_ID]'],
    ['SIN 046 454 286', 'SIN [REDACTED_NATIONAL_ID]'],
    ['DNI 12345678Z', 'DNI [REDACTED_NATIONAL_ID]'],
    ['NIE X1234567L', 'NIE [REDACTED_NATIONAL_ID]'],
    ['CF RSSMRA85T10A562S', 'CF [REDACTED_NATIONAL_ID]'],
    ['CPF 123.456.789-09', 'CPF [REDACTED_NATIONAL_ID]'],
  ])('national id %j', (text, expected) => expect(redacted(text)).toBe(expected));

  test.each([
    ['Visa 4111 1111 1111 1111', 'Visa [REDACTED_CARD]'],
    ['Visa 4111-1111-1111-1111', 'Visa [REDACTED_CARD]'],
    ['Visa 4111111111111111', 'Visa [REDACTED_CARD]'],
    ['Amex 3782 822463 10005', 'Amex [REDACTED_CARD]'],
    ['13 digits 4222222222222', '13 digits [REDACTED_CARD]'],
    ['19 digits 6304 0000 0000 0000 018', '19 digits [REDACTED_CARD]'],
    ['two cards 4111 1111 1111 1111 5500 0000 0000 0004', 'two cards [REDACTED_CARD] [REDACTED_CARD]'],
  ])('card %j', (text, expected) => expect(redacted(text)).toBe(expected));

  test.each([
    ['host 192.168.0.1', 'host [REDACTED_IP]'],
    ['host 10.0.0.255:8080', 'host [REDACTED_IP]:8080'],
    ['edges 0.0.0.0 and 255.255.255.255', 'edges [REDACTED_IP] and [REDACTED_IP]'],
    ['v6 2001:0db8:0000:0000:0000:ff00:0042:8329', 'v6 [REDACTED_IP]'],
    ['v6 2001:db8::1', 'v6 [REDACTED_IP]'],
    ['loopback ::1', 'loopback [REDACTED_IP]'],
    ['link fe80::1%eth0', 'link [REDACTED_IP]%eth0'],
    ['prefix 2001:db8:: only', 'prefix [REDACTED_IP] only'],
    ['mapped ::ffff:192.0.2.128', 'mapped [REDACTED_IP]'],
    ['url [2001:db8::1]:443', 'url [[REDACTED_IP]]:443'],
    ['colon after fe80::1: done', 'colon after [REDACTED_IP]: done'],
  ])('ip %j', (text, expected) => expect(redacted(text)).toBe(expected));

  test('JSON text: escapes stay whole and what follows them is still found', () => {
    const json = JSON.stringify({ note: 'line\njane@x.org\n+44 20 7946 0958\tQQ123456C', name: 'caf\u00e9 a@b.io' });
    const out = redacted(json);
    expect(JSON.parse(out)).toEqual({
      note: 'line\n[REDACTED_EMAIL]\n[REDACTED_PHONE]\t[REDACTED_NATIONAL_ID]',
      name: 'café [REDACTED_EMAIL]',
    });
    const escaped = String.raw`{"a":"\u00e9jane@x.org"}`;
    expect(JSON.parse(redacted(escaped))).toEqual({ a: 'é[REDACTED_EMAIL]' });
  });

  test('counts what it found', () => {
    expect(redactPii('a@b.io, 10.0.0.1 and 4111 1111 1111 1111').found).toBe(3);
    expect(redactPii('nothing here').found).toBe(0);
  });
});

describe('no false positives on ordinary text', () => {
  test.each([
    'The meeting is at 10:30 on 2024-01-15, or 15/01/2024, or 01.02.2024 10:30.',
    'It costs $1,299.99 (or €5, £12.50, 1.5 million, 3,000,000 units) in 2024.',
    'Upgrade to v1.2.3 or version 10.4.1; Python 3.12 and Node 24.21.0 work.',
    'Order #12345678, order 98765432, ORD-2024-000123 and ticket 5551234567 shipped.',
    'ISBN 978-3-16-148410-0 is on page 123 of 456; room 12 34; call ext. 4521.',
    'Invalid card 4111 1111 1111 1112 and id 1234 5678 9012 3456 are not cards.',
    'Pi is 3.14159265358979323846 and e is 2.718281828459045.',
    'Not IPs: 999.1.1.1, 1.2.3.4.5, 256.0.0.1, 01.02.03.04, a MAC 00:1A:2B:3C:4D:5E.',
    'C++ std::vector and Foo::Bar, ratios 1:2 and 16:9, time 12:30:45, the :: token.',
    'Hello world, my name is Ada and I like math: 2 + 2 = 4, 10 - 3 = 7.',
    'Email us at support (at) example (dot) com; user@localhost has no domain.',
    'Scores 100 200 300; dates 2023-2024; ranges 10-20-30; +5 points; -3 degrees.',
  ])('%j', (text) => {
    expect(redactPii(text)).toEqual({ text, found: 0 });
  });
});

test('Luhn: valid and invalid numbers', () => {
  for (const valid of [
    '4111111111111111',
    '5500000000000004',
    '378282246310005',
    '6011111111111117',
    '79927398713',
    '046454286',
  ]) {
    expect(luhnValid(valid)).toBe(true);
  }
  for (const invalid of ['4111111111111112', '1234567812345678', '79927398710', '0000000000000', '', '4111 1111']) {
    expect(luhnValid(invalid)).toBe(false);
  }
});

test('IPv6 validator', () => {
  for (const ok of [
    '::1',
    '1::',
    '2001:db8::8a2e:370:7334',
    '1:2:3:4:5:6:7:8',
    '::ffff:10.0.0.1',
    '1:2:3:4:5:6:1.2.3.4',
  ])
    expect(isIpv6(ok)).toBe(true);
  for (const bad of [
    '::',
    '1:2:3',
    '1::2::3',
    '12345::',
    '1:2:3:4:5:6:7:8:9',
    '::ffff:300.0.0.1',
    '1:2:3:4:5:6:7:1.2.3.4',
    ':::',
  ])
    expect(isIpv6(bad)).toBe(false);
});

test('the national-ID table documents every row', () => {
  expect(NATIONAL_IDS.length).toBeGreaterThanOrEqual(5);
  for (const row of NATIONAL_IDS) expect(row.name).toMatch(/\(.+\)/);
});

describe('properties: generated PII embedded in random text is never left', () => {
  const cases = { email, phone, card, ssn, nino, ipv4, ipv6 };
  test.each(Object.entries(cases))('%s', (_, pii) => {
    fc.assert(
      fc.property(embedded(pii), ([before, open, value, close, after]) => {
        const result = redactPii(`${before}${open}${value}${close}${after}`);
        expect(result.text).not.toContain(value);
        expect(result.found).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });

  test('Luhn-valid cards are redacted, the same digits with a wrong check digit are not', () => {
    fc.assert(
      fc.property(card, cardNumber, (value, number) => {
        expect(redacted(`card ${value} ok`)).toBe('card [REDACTED_CARD] ok');
        // Ungrouped, so no shorter run of whole groups inside it can be Luhn-valid by chance.
        const wrong = `${number.slice(0, -1)}${(Number(number.at(-1)) + 1) % 10}`;
        expect(redacted(`card ${wrong} ok`)).toBe(`card ${wrong} ok`);
      }),
    );
  });

  test('several values in one text', () => {
    fc.assert(
      fc.property(fc.array(anyPii, { minLength: 1, maxLength: 6 }), (values) => {
        const out = redacted(values.map((v) => `see: ${v}; `).join('and '));
        for (const v of values) expect(out).not.toContain(v);
      }),
    );
  });
});

test('no detector reads further than it declares (the stream redactor relies on it)', () => {
  const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
  for (const detector of PII_DETECTORS) {
    const alphabet = printable.filter((c) => detector.alphabet.test(c));
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 500 }), (text) => {
        for (const m of text.matchAll(new RegExp(detector.pattern.source, 'g')))
          expect(m[0].length).toBeLessThanOrEqual(detector.maxLength);
      }),
      { numRuns: 200 },
    );
  }
});

describe('the whole-text scan is linear on hostile text', () => {
  const examined = (text: string) => {
    const work = { examined: 0 };
    redactPii(text, work);
    return work.examined;
  };

  // Each detector's search covers each character about once; a rejected candidate (a Luhn-invalid
  // card, an SSN with a 000 group) is read again from its next character, a few times at most.
  test.each(HOSTILE_UNITS)(
    '%j repeated: a bounded number of reads per character, four times for four times the text',
    (unit) => {
      const text = unit.repeat(Math.ceil(5000 / unit.length));
      const once = examined(text);
      expect(once).toBeLessThanOrEqual(3 * PII_DETECTORS.length * text.length);
      expect(examined(text.repeat(4))).toBeLessThanOrEqual(4.2 * once);
    },
  );

  test('property: hostile text with PII between the runs', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(examined(text)).toBeLessThanOrEqual(3 * PII_DETECTORS.length * Math.max(text.length, 1));
      }),
      { numRuns: 200 },
    );
  });

  // What the count above cannot see is backtracking inside one regex search; CPU time can.
  test('a long adversarial text stays fast (no catastrophic backtracking)', () => {
    const nasty = [
      '+1 '.repeat(20000),
      '1-'.repeat(20000),
      'a.'.repeat(20000) + '@',
      'f:'.repeat(20000),
      '1 '.repeat(20000),
      'A'.repeat(50000),
      ...HOSTILE_UNITS.map((unit) => unit.repeat(Math.ceil(40000 / unit.length))),
    ];
    const started = process.cpuUsage();
    for (const text of nasty) redactPii(text);
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(3000);
  });
});
