/**
 * PII detection and redaction (the `pii` guardrail): emails, phone numbers, national-ID-style
 * numbers, Luhn-valid card numbers and IP addresses become `[REDACTED_<KIND>]`.
 *
 * Every detector is data: a regex, an optional check of the candidate, and the facts the stream
 * redactor needs to know how much of a stream's tail could still grow into a match. Whole texts
 * and streams share the search (`findMatch`) and the choice between matches (`preferred`), so
 * both give the same answer.
 *
 * Scan rule: at the current position take the match that starts first; on a tie the longest;
 * then continue after it. A detector's match at a position depends only on the text from a few
 * characters before it (lookbehinds, at most LOOKBEHIND) to `maxLength` after it.
 */

export type PiiKind = 'EMAIL' | 'PHONE' | 'NATIONAL_ID' | 'CARD' | 'IP';

export interface PiiDetector {
  readonly name: string;
  readonly kind: PiiKind;
  /** Global regex; lookbehinds read at most LOOKBEHIND characters before the match. */
  readonly pattern: RegExp;
  /** Length of the candidate's accepted prefix; 0 rejects it (checksums, digit counts). */
  readonly accept?: (candidate: string) => number;
  /** Every character the pattern can consume, inside lookaheads too (one-character class). */
  readonly alphabet: RegExp;
  /** Every character a match can start with (one-character class). */
  readonly starts: RegExp;
  /** Most characters the pattern reads from a match's start, lookaheads included. */
  readonly maxLength: number;
}

export const LOOKBEHIND = 8;

export const redactionToken = (kind: PiiKind): string => `[REDACTED_${kind}]`;

/**
 * A match may not start right after one of `chars` (it would be the middle of a longer token),
 * except just after a JSON escape (`\n`, `\u00e9`): answers and tool arguments are often JSON
 * text, where "\njane@example.com" must still be found, and the escape must stay whole.
 */
const after = (chars: string) => String.raw`(?:(?<=\\[nrtbf]|\\u[0-9A-Fa-f]{4})|(?<![${chars}\\]))`;
/** Not preceded by a digit, directly or across one separator: not the tail of a longer number. */
const notAfterNumber = String.raw`(?<!\d[ .\-])`;

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits) || /^0+$/.test(digits)) return false;
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

const digitCount = (s: string) => s.replace(/\D/g, '').length;
const whole = (check: (s: string) => boolean) => (s: string) => (check(s) ? s.length : 0);

/**
 * Card candidates are digit groups (3+ digits each, so dates like 2024-01-15 never join) split
 * by single spaces or dashes. The longest prefix of whole groups with 13 to 19 digits that is
 * Luhn-valid is the card; an invalid run is left alone (order numbers, long ids).
 */
function acceptCard(candidate: string): number {
  const groups = [...candidate.matchAll(/\d+/g)];
  for (let k = groups.length; k >= 1; k--) {
    const digits = groups
      .slice(0, k)
      .map((g) => g[0])
      .join('');
    if (digits.length < 13) return 0;
    if (digits.length <= 19 && luhnValid(digits)) return groups[k - 1]!.index + groups[k - 1]![0].length;
  }
  return 0;
}

const IPV4_OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const IPV4 = String.raw`(?:${IPV4_OCTET}\.){3}${IPV4_OCTET}`;
const isIpv4 = (s: string) => new RegExp(`^${IPV4}$`).test(s);

/** Full, `::`-compressed and IPv4-suffixed forms; the unspecified address `::` is not PII. */
export function isIpv6(s: string): boolean {
  let text = s;
  if (text.includes('.')) {
    const cut = text.lastIndexOf(':');
    if (!isIpv4(text.slice(cut + 1))) return false;
    text = `${text.slice(0, cut + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = halves.map((half) => (half === '' ? [] : half.split(':')));
  if (!groups.flat().every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  const count = groups.flat().length;
  return halves.length === 2 ? count >= 1 && count <= 7 : count === 8;
}

function acceptIpv6(candidate: string): number {
  if (isIpv6(candidate)) return candidate.length;
  // "fe80::1: ..." in prose: the trailing colon is punctuation.
  if (candidate.endsWith(':') && !candidate.endsWith('::') && isIpv6(candidate.slice(0, -1)))
    return candidate.length - 1;
  return 0;
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
function validSpanishId(id: string): boolean {
  const compact = id.replaceAll('-', '');
  const number = compact.slice(0, -1).replace(/^[XYZ]/, (c) => String('XYZ'.indexOf(c)));
  return DNI_LETTERS[Number(number) % 23] === compact.at(-1);
}

/**
 * National-ID-style numbers: formats distinctive enough (or checksummed) to redact without
 * context. Extend by adding a row; keep `alphabet`/`starts`/`maxLength` true to the pattern.
 */
export const NATIONAL_IDS: readonly (Omit<PiiDetector, 'kind' | 'pattern'> & { source: string })[] = [
  {
    name: 'US Social Security number (123-45-6789; never 000/666/9xx area, 00 group, 0000 serial)',
    source: String.raw`${after(String.raw`\w\-`)}${notAfterNumber}(?!000|666|9\d\d)\d{3}([\- ])(?!00)\d{2}\1(?!0000)\d{4}(?!\w|[ \-]\d)`,
    alphabet: /[0-9 -]/,
    starts: /\d/,
    maxLength: 13,
  },
  {
    name: 'UK National Insurance number (QQ 12 34 56 C)',
    source: String.raw`${after('A-Za-z0-9')}[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])`,
    alphabet: /[A-Z0-9 ]/,
    starts: /[A-Z]/,
    maxLength: 14,
  },
  {
    name: 'Canadian Social Insurance number (046 454 286; Luhn-valid, never 8xx)',
    source: String.raw`${after(String.raw`\w\-`)}${notAfterNumber}[0-79]\d{2}([\- ])\d{3}\1\d{3}(?!\w|[ \-]\d)`,
    accept: whole((s) => luhnValid(s.replace(/\D/g, ''))),
    alphabet: /[0-9 -]/,
    starts: /[0-79]/,
    maxLength: 13,
  },
  {
    name: 'Spanish DNI / NIE (12345678Z, X1234567L; check letter verified)',
    source: String.raw`${after(String.raw`\w\-`)}(?:\d{8}|[XYZ]-?\d{7})-?[A-Z](?!\w)`,
    accept: whole(validSpanishId),
    alphabet: /[0-9A-Z-]/,
    starts: /[0-9XYZ]/,
    maxLength: 12,
  },
  {
    name: 'Italian codice fiscale (RSSMRA85T10A562S)',
    source: String.raw`${after('A-Za-z0-9')}[A-Z]{6}\d{2}[ABCDEHLMPRST]\d{2}[A-Z]\d{3}[A-Z](?![A-Za-z0-9])`,
    alphabet: /[A-Z0-9]/,
    starts: /[A-Z]/,
    maxLength: 17,
  },
  {
    name: 'Brazilian CPF (123.456.789-09)',
    source: String.raw`${after(String.raw`\w.\-`)}\d{3}\.\d{3}\.\d{3}-\d{2}(?!\w|[.\-]\d)`,
    alphabet: /[0-9.-]/,
    starts: /\d/,
    maxLength: 16,
  },
];

/** RFC 5322 atext plus the dot, as a character-class body. */
const EMAIL_LOCAL = String.raw`\w.!#$%&'*+/=?^\`{|}~\-`;

const PHONE = { kind: 'PHONE', alphabet: /[0-9 .()+-]/, starts: /[0-9(+]/, maxLength: 72 } as const;
const NOT_AFTER_WORD = after(String.raw`\w+#/.@\-`);
const PHONE_END = String.raw`(?!\w|[ .\-]\d)`;

/** The table the scan runs, in tie-break order. */
export const PII_DETECTORS: readonly PiiDetector[] = [
  {
    name: 'email address',
    kind: 'EMAIL',
    pattern: new RegExp(
      // The local part takes every RFC 5322 atext character (`/`, `!`, `{`, ... are legal).
      String.raw`${after(EMAIL_LOCAL)}[${EMAIL_LOCAL}]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.){1,4}[A-Za-z]{2,24}(?![\w\-])`,
      'g',
    ),
    alphabet: new RegExp(`[${EMAIL_LOCAL}@]`),
    starts: new RegExp(`[${EMAIL_LOCAL}]`),
    maxLength: 350,
  },
  {
    ...PHONE,
    name: 'international phone number (+44 20 7946 0958, +1 (555) 123-4567, +14155552671; 8 to 17 digits)',
    // Groups are whole digit runs split by one separator, so matching never backtracks widely.
    pattern: new RegExp(
      String.raw`${after(String.raw`\w+`)}\+[1-9](?:\d{7,14}(?!\d)|\d{0,5}(?:[ .\-]?\(\d{1,5}\))?(?:[ .\-]\d{1,8}|(?<=\))\d{1,8}){1,6}(?!\d|[ .\-]\d))`,
      'g',
    ),
    accept: whole((s) => digitCount(s) >= 8 && digitCount(s) <= 17),
  },
  {
    ...PHONE,
    name: 'North American phone number ((555) 123-4567, 555-123-4567, 1-555-123-4567; separators required)',
    pattern: new RegExp(
      String.raw`${NOT_AFTER_WORD}${notAfterNumber}(?:1[ .\-]?)?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4}${PHONE_END}`,
      'g',
    ),
  },
  {
    ...PHONE,
    name: 'national phone number with trunk 0 (020 7946 0958, 07700 900123, (02) 9876 5432; 10 or 11 digits)',
    pattern: new RegExp(
      String.raw`${NOT_AFTER_WORD}${notAfterNumber}(?:0[1-9]\d{1,3}[ .\-]?\d{3,4}[ .\-]?\d{3,4}|\(0\d{1,4}\) ?\d{3,4}[ .\-]?\d{3,4})${PHONE_END}`,
      'g',
    ),
    accept: whole((s) => digitCount(s) >= 10 && digitCount(s) <= 11),
  },
  {
    ...PHONE,
    name: 'phone number in pairs (06 12 34 56 78, 01.23.45.67.89; one separator throughout)',
    pattern: new RegExp(
      String.raw`${NOT_AFTER_WORD}${notAfterNumber}0[1-9]([ .\-])\d{2}(?:\1\d{2}){3}${PHONE_END}`,
      'g',
    ),
  },
  ...NATIONAL_IDS.map(({ source, ...row }): PiiDetector => ({
    ...row,
    kind: 'NATIONAL_ID',
    pattern: new RegExp(source, 'g'),
  })),
  {
    name: 'payment card number (13 to 19 digits, spaces or dashes between groups, Luhn-valid)',
    kind: 'CARD',
    pattern: /(?<![\d.,])\d{3,19}(?:[ -]\d{3,16}){0,5}(?!\d|[.,]\d)/g,
    accept: acceptCard,
    alphabet: /[0-9 ,.-]/,
    starts: /\d/,
    maxLength: 110,
  },
  {
    name: 'IPv4 address (0-255 per octet, no leading zeros)',
    kind: 'IP',
    pattern: new RegExp(String.raw`${after(String.raw`\w.`)}${IPV4}(?!\w|\.\d)`, 'g'),
    alphabet: /[0-9.]/,
    starts: /\d/,
    maxLength: 20,
  },
  {
    name: 'IPv6 address (full, :: compressed, IPv4-mapped)',
    kind: 'IP',
    // Candidates are hex-and-colon runs (with an optional IPv4 tail); isIpv6 decides.
    pattern: new RegExp(
      String.raw`${after(String.raw`\w:.`)}(?=[0-9A-Fa-f]{0,4}:)[0-9A-Fa-f:]{2,39}(?:\d{1,3}(?:\.\d{1,3}){3})?(?![\w:]|\.\d)`,
      'g',
    ),
    accept: acceptIpv6,
    alphabet: /[0-9A-Fa-f:.]/,
    starts: /[0-9A-Fa-f:]/,
    maxLength: 60,
  },
];

/** A match to redact: `text[start, end)`. */
export interface Span {
  readonly start: number;
  readonly end: number;
  readonly kind: PiiKind;
}

/**
 * Counts the characters a scan examines: the stretch each regex search covers (from where it
 * started to the end of the match it returned, or of the text), plus the characters the stream
 * redactor looks up in its tables and copies. Tests use it to show the work is linear.
 */
export interface ScanWork {
  examined: number;
}

/**
 * The detector's first accepted match that starts at or after `from` and before `before`.
 * The search may read past `before` (a match there is not returned): callers that must not
 * read beyond some point pass a `text` that ends there.
 */
export function findMatch(
  detector: PiiDetector,
  text: string,
  from: number,
  before = text.length,
  work?: ScanWork,
): Span | undefined {
  const pattern = detector.pattern;
  pattern.lastIndex = from;
  for (;;) {
    const searchedFrom = pattern.lastIndex;
    const m = pattern.exec(text);
    if (work) work.examined += (m ? m.index + m[0].length : text.length) - searchedFrom;
    if (!m || m.index >= before) return undefined;
    const length = detector.accept ? detector.accept(m[0]) : m[0].length;
    if (length > 0) return { start: m.index, end: m.index + length, kind: detector.kind };
    pattern.lastIndex = m.index + 1;
  }
}

/**
 * The scan's choice between candidates: the match that starts first; on a tie the longest; on
 * a full tie the one already chosen (detectors are offered in table order).
 */
export const preferred = (candidate: Span, chosen: Span | undefined): boolean =>
  !chosen || candidate.start < chosen.start || (candidate.start === chosen.start && candidate.end > chosen.end);

export function redactPii(text: string, work?: ScanWork): { text: string; found: number } {
  // Per detector, its next match at or after the position it was searched from (null: none).
  const upcoming: (Span | null | undefined)[] = new Array(PII_DETECTORS.length);
  let position = 0;
  let out = '';
  let found = 0;
  for (;;) {
    let best: Span | undefined;
    for (let i = 0; i < PII_DETECTORS.length; i++) {
      let span = upcoming[i];
      if (span === undefined || (span !== null && span.start < position))
        span = upcoming[i] = findMatch(PII_DETECTORS[i]!, text, position, text.length, work) ?? null;
      if (span && preferred(span, best)) best = span;
    }
    if (!best) break;
    out += text.slice(position, best.start) + redactionToken(best.kind);
    position = best.end;
    found++;
  }
  return { text: out + text.slice(position), found };
}
