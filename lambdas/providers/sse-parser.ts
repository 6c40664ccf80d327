/**
 * An incremental Server-Sent Events parser for upstream streams. Bytes may arrive split
 * anywhere, including inside a multi-byte UTF-8 character or between `\r` and `\n`; lines may
 * end in `\n`, `\r\n` or `\r`; comments (`:`) are dropped; several `data:` lines in one event
 * are joined with `\n`.
 */
export interface SseEvent {
  /** The `event:` name, or undefined for data-only streams. */
  readonly event?: string;
  readonly data: string;
}

/** Counts characters a parser examines and copies: tests use it to show parsing is linear. */
export interface ParseWork {
  examined: number;
}

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  /**
   * The line still being received, in the pieces it came in: joined once, when it ends, so a
   * long line arriving in many small chunks is not copied and rescanned on every chunk.
   */
  private partial: string[] = [];
  private eventName: string | undefined;
  private dataLines: string[] = [];
  /** A `\r` ended the last text: a `\n` opening the next one belongs to the same line end. */
  private pendingCr = false;

  constructor(private readonly work?: ParseWork) {}

  /** Feeds bytes (or text); returns the events completed by them. */
  push(chunk: Uint8Array | string): SseEvent[] {
    return this.drain(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
  }

  /** End of stream: a final event without its blank line still counts. */
  end(): SseEvent[] {
    const events = this.drain(this.decoder.decode());
    if (this.partial.length > 0) this.takeLine(this.finishLine(''), events);
    this.dispatch(events);
    return events;
  }

  private drain(received: string): SseEvent[] {
    const events: SseEvent[] = [];
    // An empty piece (or only part of a character) changes nothing: a \r before it still pairs with a \n after it.
    if (received === '') return events;
    const text = this.pendingCr && received.startsWith('\n') ? received.slice(1) : received;
    this.pendingCr = false;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.takeLine(this.finishLine(text.slice(start, i)), events);
      if (c === 13) {
        if (i + 1 === text.length) this.pendingCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    if (this.work) this.work.examined += text.length;
    if (start < text.length) this.partial.push(text.slice(start));
    return events;
  }

  /** The whole line: its earlier pieces, if any, and this last one. */
  private finishLine(last: string): string {
    if (this.partial.length === 0) return last;
    this.partial.push(last);
    const line = this.partial.join('');
    this.partial = [];
    if (this.work) this.work.examined += line.length;
    return line;
  }

  private takeLine(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.dispatch(events);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.dataLines.push(value);
    else if (field === 'event') this.eventName = value;
  }

  private dispatch(events: SseEvent[]): void {
    if (this.dataLines.length > 0) {
      events.push(
        this.eventName === undefined
          ? { data: this.dataLines.join('\n') }
          : { event: this.eventName, data: this.dataLines.join('\n') },
      );
    }
    this.dataLines = [];
    this.eventName = undefined;
  }
}
