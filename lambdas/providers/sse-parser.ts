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

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private eventName: string | undefined;
  private dataLines: string[] = [];
  /** A `\r` ended the last chunk: a `\n` opening the next one belongs to the same line end. */
  private pendingCr = false;

  /** Feeds bytes (or text); returns the events completed by them. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    return this.drainLines();
  }

  /** End of stream: a final event without its blank line still counts. */
  end(): SseEvent[] {
    this.buffer += this.decoder.decode();
    const events = this.drainLines();
    if (this.buffer !== '') {
      this.takeLine(this.buffer, events);
      this.buffer = '';
    }
    this.dispatch(events);
    return events;
  }

  private drainLines(): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.takeLine(this.buffer.slice(start, i), events);
      if (c === 13) {
        if (i + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
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
