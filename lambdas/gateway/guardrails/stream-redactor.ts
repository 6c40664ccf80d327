import { LOOKBEHIND, PII_DETECTORS, redactFrom } from './pii.js';

/**
 * PII redaction for one streamed text (one choice's content, or one tool call's arguments).
 * The concatenation of everything `push` and `flush` return equals `redactPii` of the whole text.
 *
 * Why that holds: the scan decides a match at position p by reading characters from p onward
 * (plus LOOKBEHIND before it, which is kept). If a detector's read at p could reach past the
 * text received so far, then every character from p to the end is one it can consume and the
 * end is within its `maxLength` of p. `holdPoint` finds the first p where that is possible for
 * any detector; everything before it is decided exactly as in the whole text and goes out now.
 * So only the tail that could still be the start of a match is held: usually the last word.
 */
export class StreamRedactor {
  /** Received text from `#start` on is not emitted yet; before it, up to LOOKBEHIND characters of context. */
  #buffer = '';
  #start = 0;
  #found = 0;

  /** Matches redacted so far. */
  get found(): number {
    return this.#found;
  }

  /** Characters received and not yet emitted. */
  get pending(): number {
    return this.#buffer.length - this.#start;
  }

  push(delta: string): string {
    if (delta === '') return '';
    this.#buffer += delta;
    return this.#advance(holdPoint(this.#buffer, this.#start));
  }

  /** The end of the text: emits what was held back. */
  flush(): string {
    const out = this.#advance(this.#buffer.length);
    this.#buffer = '';
    this.#start = 0;
    return out;
  }

  #advance(limit: number): string {
    const step = redactFrom(this.#buffer, this.#start, limit);
    this.#found += step.found;
    const keep = Math.max(0, step.next - LOOKBEHIND);
    this.#buffer = this.#buffer.slice(keep);
    this.#start = step.next - keep;
    return step.text;
  }
}

/** The first position at or after `from` where a match could still depend on text not yet received. */
export function holdPoint(text: string, from: number): number {
  let hold = text.length;
  for (const detector of PII_DETECTORS) {
    const lowest = Math.max(from, text.length - detector.maxLength);
    let p = text.length;
    while (p > lowest && detector.alphabet.test(text[p - 1]!)) p--;
    for (let i = p; i < hold; i++) {
      if (detector.starts.test(text[i]!)) {
        hold = i;
        break;
      }
    }
  }
  return hold;
}
