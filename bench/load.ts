import { Agent, request, type IncomingHttpHeaders } from 'node:http';

/** One kind of request to time: where it goes and what it sends (the body varies per index). */
export interface Probe {
  readonly name: string;
  readonly url: URL;
  /** Headers for request number `i` (e.g. a key chosen per request). */
  headers(i: number): Record<string, string>;
  body(i: number): string;
  /** Checks each answer (status, headers); returns a problem, or undefined when it is right. */
  check?(outcome: Outcome): string | undefined;
}

export interface Outcome {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Milliseconds from sending to the last body byte. */
  readonly totalMs: number;
  /** Milliseconds from sending to the first body byte. */
  readonly firstByteMs: number;
  readonly bytes: number;
  /** The body, for non-2xx answers (to explain a failure). */
  readonly errorBody?: string;
}

/** A keep-alive client: `maxSockets` bounds the connections (1 for sequential runs). */
export const keepAliveAgent = (maxSockets: number) =>
  new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });

/** Sends one POST and reads the whole answer, timing the first and the last body byte. */
export function exchange(agent: Agent, probe: Probe, i: number): Promise<Outcome> {
  const body = Buffer.from(probe.body(i));
  return new Promise((done, fail) => {
    const start = performance.now();
    const req = request(
      probe.url,
      { method: 'POST', agent, headers: { ...probe.headers(i), 'Content-Length': String(body.length) } },
      (res) => {
        let firstByteMs = NaN;
        let bytes = 0;
        const errorChunks: Buffer[] = [];
        const failed = (res.statusCode ?? 0) >= 300;
        res.on('data', (chunk: Buffer) => {
          if (bytes === 0) firstByteMs = performance.now() - start;
          bytes += chunk.length;
          if (failed) errorChunks.push(chunk);
        });
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            headers: res.headers,
            totalMs: performance.now() - start,
            firstByteMs,
            bytes,
            ...(failed ? { errorBody: Buffer.concat(errorChunks).toString('utf8').slice(0, 500) } : {}),
          }),
        );
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

export interface RunResult {
  readonly outcomes: Outcome[];
  /** Wall-clock milliseconds for the whole run. */
  readonly wallMs: number;
}

/**
 * Sends `count` requests with at most `concurrency` in flight (each worker sends its next one
 * when its previous answer has been read), numbering them from `firstIndex`. Any answer that
 * fails the probe's check stops the benchmark: figures over wrong answers mean nothing.
 */
export async function run(
  probe: Probe,
  count: number,
  concurrency: number,
  firstIndex = 0,
  agent?: Agent,
): Promise<RunResult> {
  const client = agent ?? keepAliveAgent(concurrency);
  const outcomes: Outcome[] = new Array(count);
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const outcome = await exchange(client, probe, firstIndex + n);
      const problem =
        outcome.status !== 200 ? `status ${outcome.status}: ${outcome.errorBody ?? ''}` : probe.check?.(outcome);
      if (problem) throw new Error(`${probe.name} request ${firstIndex + n}: ${problem}`);
      outcomes[n] = outcome;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  } finally {
    if (!agent) client.destroy();
  }
  return { outcomes, wallMs: performance.now() - start };
}
