/**
 * The one session event sink: every event of a session passes through it and gets the next id
 * (1, 2, 3...: the SSE `id:` field). Clients can tell order and gaps from the ids; the next
 * step makes the sink durable (each event appended before it is sent), so that a client can
 * resume from its Last-Event-ID.
 */
import type { ArenaEvent } from './arena-events.js';

export interface SequencedEvent {
  readonly id: number;
  readonly event: ArenaEvent;
}

export class SessionEventSink {
  private last = 0;

  constructor(readonly sessionId: string) {}

  /** The id of the last event that passed. */
  get lastId(): number {
    return this.last;
  }

  async *sequence(events: AsyncIterable<ArenaEvent>): AsyncGenerator<SequencedEvent> {
    for await (const event of events) yield { id: ++this.last, event };
  }
}
