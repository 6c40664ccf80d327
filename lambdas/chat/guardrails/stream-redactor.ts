import {
  findMatch,
  LOOKBEHIND,
  PII_DETECTORS,
  preferred,
  redactionToken,
  type PiiDetector,
  type ScanWork,
  type Span,
} from './pii.js';

/**
 * PII redaction for one streamed text (one choice's content, or one tool call's arguments).
 * The concatenation of everything `push` and `flush` return equals `redactPii` of the whole text.
 *
 * Why that holds: a detector decides a match at position p by reading characters from p onward
 * (plus LOOKBEHIND before it, which is kept), and its read can only go on through characters of
 * its `alphabet`, at most `maxLength` of them. So p is final for that detector once a character
 * outside the alphabet, or `maxLength` characters, have arrived from p on: a search there answers
 * as in the whole text. Past the final positions, only a character of `starts` can begin a match;
 * the first such character is the detector's hold, and output stops at the least hold of all.
 * Usually that holds back the last word.
 *
 * Why the work is linear, however the text is split: each detector remembers how far it has
 * searched and its next match, so no position is searched twice; a search is handed the text
 * only up to where its final positions' reads can end, so it does not wander into the undecided
 * tail. Only a run of a detector's own alphabet longer than its `maxLength` makes a search read
 * past its last final position (up to `maxLength` more); there the detector's final positions
 * advance in steps of a quarter of `maxLength`, so such reads cost at most a few times what they
 * decide, and at most MAX_PENDING characters are held back.
 */

/** Characters a redactor holds back at most: the longest undecided run plus one step. */
export const MAX_PENDING = Math.max(...PII_DETECTORS.map((d) => d.maxLength + stepOf(d)));

function stepOf(detector: PiiDetector): number {
  return Math.ceil(detector.maxLength / 4);
}

// The character tables below give each detector one bit of an Int32.
if (PII_DETECTORS.length > 32) throw new Error('the stream redactor tables hold at most 32 detectors');
const ALL = PII_DETECTORS.length === 32 ? -1 : (1 << PII_DETECTORS.length) - 1;

/**
 * Per character code, which detectors have it in `alphabet` and in `starts`: a page of 256 codes
 * is filled the first time one of them is seen, so text in any script costs one lookup a
 * character and only the pages a text uses are built.
 */
const pages: (Int32Array | undefined)[] = [];
function pageOf(code: number): Int32Array {
  const number = code >> 8;
  const known = pages[number];
  if (known) return known;
  const page = new Int32Array(512);
  for (let low = 0; low < 256; low++) {
    const char = String.fromCharCode((number << 8) | low);
    let alphabet = 0;
    let starts = 0;
    PII_DETECTORS.forEach((detector, bit) => {
      if (detector.alphabet.test(char)) alphabet |= 1 << bit;
      if (detector.starts.test(char)) starts |= 1 << bit;
    });
    page[2 * low] = alphabet;
    page[2 * low + 1] = starts;
  }
  pages[number] = page;
  return page;
}
const alphabetBits = (code: number) => pageOf(code)[2 * (code & 255)]!;
const startBits = (code: number) => pageOf(code)[2 * (code & 255) + 1]!;

/** What the redactor knows of one detector; positions are indices in the whole stream. */
interface Progress {
  readonly detector: PiiDetector;
  readonly bit: number;
  readonly step: number;
  /** The last character received outside the detector's alphabet (-1: none yet). */
  lastOutside: number;
  /** The last character received that may start a match (-1: none yet). */
  lastStart: number;
  /** Positions before it are searched exactly as in the whole text. */
  frontier: number;
  /** The first position at or after the frontier and the output that may start a match (or the end). */
  hold: number;
  /** Its place in the list of possible starts: entries before it are behind the hold. */
  cursor: number;
  /** The next match, once found: final, since it starts before the frontier. */
  next: Span | null;
  /** With no next match: none starts between the last search's start and here. */
  clear: number;
}

export class StreamRedactor {
  /** Received text from `#base` on: the undecided part, and LOOKBEHIND characters before it. */
  #text = '';
  #base = 0;
  #received = 0;
  /** Everything before it went out. */
  #position = 0;
  #found = 0;
  #progress: Progress[] = [];
  /** Positions that may start a match and, for each, the detectors it may start one for. */
  #starts: number[] = [];
  #startMasks: number[] = [];
  /** Entries dropped from the front of the two lists above. */
  #startsDropped = 0;

  constructor(private readonly work?: ScanWork) {
    this.#reset();
  }

  /** Matches redacted so far. */
  get found(): number {
    return this.#found;
  }

  /** Characters received and not yet emitted. */
  get pending(): number {
    return this.#received - this.#position;
  }

  push(delta: string): string {
    if (delta === '') return '';
    const offset = this.#received;
    this.#text += delta;
    this.#received += delta.length;
    this.#note(delta, offset);
    let limit = this.#received;
    for (const p of this.#progress) {
      this.#advanceFrontier(p);
      limit = Math.min(limit, this.#findHold(p));
    }
    return this.#emit(limit);
  }

  /** The end of the text: everything is decided, and what was held back goes out. */
  flush(): string {
    for (const p of this.#progress) p.frontier = p.hold = this.#received;
    const out = this.#emit(this.#received);
    this.#reset();
    return out;
  }

  #reset(): void {
    this.#text = '';
    this.#base = this.#received = this.#position = 0;
    this.#starts = [];
    this.#startMasks = [];
    this.#startsDropped = 0;
    this.#progress = PII_DETECTORS.map((detector, bit) => ({
      detector,
      bit: 1 << bit,
      step: stepOf(detector),
      lastOutside: -1,
      lastStart: -1,
      frontier: 0,
      hold: 0,
      cursor: 0,
      next: null,
      clear: 0,
    }));
  }

  #count(characters: number): void {
    if (this.work) this.work.examined += characters;
  }

  /** Records where the new characters may start matches, and each detector's last outsider. */
  #note(delta: string, offset: number): void {
    // Every detector's frontier ends up within MAX_PENDING of the end: starts before it are passed.
    const first = Math.max(0, delta.length - MAX_PENDING);
    for (let i = first; i < delta.length; i++) {
      const mask = startBits(delta.charCodeAt(i));
      if (mask === 0) continue;
      this.#starts.push(offset + i);
      this.#startMasks.push(mask);
    }
    let outsideUnknown = ALL;
    let startUnknown = ALL;
    let i = delta.length - 1;
    for (; i >= 0 && (outsideUnknown | startUnknown) !== 0; i--) {
      const code = delta.charCodeAt(i);
      const outside = outsideUnknown & ~alphabetBits(code);
      const start = startUnknown & startBits(code);
      if ((outside | start) === 0) continue;
      for (const p of this.#progress) {
        if (outside & p.bit) p.lastOutside = offset + i;
        if (start & p.bit) p.lastStart = offset + i;
      }
      outsideUnknown &= ~outside;
      startUnknown &= ~start;
    }
    this.#count(2 * delta.length - first - 1 - i);
  }

  /**
   * Moves the detector's frontier to its last final position. In a run of its own alphabet
   * longer than `maxLength`, a search reads up to `maxLength` past the frontier: there the
   * frontier waits until it can move a whole step, so those reads stay a fraction of the text
   * they decide.
   */
  #advanceFrontier(p: Progress): void {
    const final = Math.max(this.#received - p.detector.maxLength, p.lastOutside + 1);
    const longRun = this.#received - p.detector.maxLength > p.lastOutside + 1;
    if (final > p.frontier && (!longRun || final - p.frontier >= p.step)) p.frontier = final;
  }

  /** The detector's hold: its first possible start at or after the frontier and the output. */
  #findHold(p: Progress): number {
    const lower = Math.max(p.frontier, this.#position);
    const starts = this.#starts;
    const masks = this.#startMasks;
    let at = p.cursor - this.#startsDropped;
    const first = at;
    while (at < starts.length && (starts[at]! < lower || (masks[at]! & p.bit) === 0)) at++;
    this.#count(at - first + 1);
    p.cursor = at + this.#startsDropped;
    p.hold = at < starts.length ? starts[at]! : this.#received;
    return p.hold;
  }

  /** Emits the text before `limit`, redacted; a match that starts before it goes out whole. */
  #emit(limit: number): string {
    let position = this.#position;
    if (limit <= position) return '';
    this.#count(this.#received - this.#base);
    let out = '';
    for (;;) {
      let best: Span | undefined;
      for (const p of this.#progress) {
        if (p.next && p.next.start < position) {
          // Overlapped by the match just taken: its next match is searched for again from here.
          p.next = null;
          p.clear = position;
        }
        const from = Math.max(p.clear, position);
        if (!p.next && from < limit) this.#search(p, from);
        if (p.next && preferred(p.next, best)) best = p.next;
      }
      if (!best || best.start >= limit) break;
      out += this.#slice(position, best.start) + redactionToken(best.kind);
      position = best.end;
      this.#found++;
    }
    if (position < limit) {
      out += this.#slice(position, limit);
      position = limit;
    }
    this.#position = position;
    this.#forget();
    return out;
  }

  /** Finds the detector's next match from `from`, or how far it is known there is none. */
  #search(p: Progress, from: number): void {
    p.next = null;
    if (p.lastStart < from) {
      // Nothing received from here on can start a match.
      p.clear = this.#received;
      return;
    }
    if (from >= p.frontier) {
      p.clear = Math.max(from, p.hold);
      return;
    }
    // Where the reads of positions before the frontier can end.
    const maxLength = p.detector.maxLength;
    const end =
      p.frontier <= p.lastOutside + 1
        ? Math.min(p.lastOutside + 1, p.frontier - 1 + maxLength)
        : Math.min(this.#received, p.frontier - 1 + maxLength);
    const start = Math.max(this.#base, from - LOOKBEHIND);
    const subject = this.#slice(start, end);
    const span = findMatch(p.detector, subject, from - start, p.frontier - start, this.work);
    if (span) p.next = { start: span.start + start, end: span.end + start, kind: span.kind };
    else p.clear = p.hold;
  }

  #slice(from: number, to: number): string {
    return this.#text.slice(from - this.#base, to - this.#base);
  }

  /** Drops what no search will read again: emitted text but its LOOKBEHIND context, passed starts. */
  #forget(): void {
    const keep = this.#position - LOOKBEHIND;
    if (keep > this.#base) {
      this.#text = this.#text.slice(keep - this.#base);
      this.#base = keep;
    }
    let passed = this.#starts.length;
    for (const p of this.#progress) passed = Math.min(passed, p.cursor - this.#startsDropped);
    if (passed > 0 && passed * 2 >= this.#starts.length) {
      this.#starts.splice(0, passed);
      this.#startMasks.splice(0, passed);
      this.#startsDropped += passed;
    }
  }
}
