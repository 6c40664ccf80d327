import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';

/**
 * The same clock as the simulators' captured timings (local/simulators/capture.ts epochMs):
 * epoch milliseconds with sub-millisecond precision, comparable between processes.
 */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export interface TimedEvent {
  /** When the chunk holding the event's last byte arrived (epoch ms). */
  readonly at: number;
  readonly data: Record<string, unknown>;
}

export interface TimedStream {
  readonly status: number;
  readonly sentAt: number;
  readonly lastByteAt: number;
  readonly events: readonly TimedEvent[];
}

/**
 * POSTs `body` and reads the SSE answer over node:http (no fetch or web-stream layers between
 * the socket and the clock), stamping each event with its arrival.
 */
export function postForEvents(url: string, headers: Record<string, string>, body: string): Promise<TimedStream> {
  return new Promise((resolve, reject) => {
    const events: TimedEvent[] = [];
    let arrivedAt = 0;
    const parser = createParser({
      onEvent: (message) => events.push({ at: arrivedAt, data: JSON.parse(message.data) as Record<string, unknown> }),
    });
    const sentAt = epochMs();
    const req = request(url, { method: 'POST', headers: { ...headers, Accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        arrivedAt = epochMs();
        parser.feed(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, sentAt, lastByteAt: arrivedAt, events }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
