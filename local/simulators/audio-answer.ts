import { publishAudio } from './audio-files.js';
import type { SimExchange } from './harness.js';
import { BUSINESS_CODES, minimaxAnswer, traceId } from './minimax-wire.js';

/**
 * How the MiniMax fake delivers generated audio, for speech and music alike (docs/upstreams.md
 * §6.2): hex in `data.audio` with `status: 2`, or a URL to the simulator's own file store; or,
 * with `stream: true`, SSE events of hex chunks (`status: 1`) and a final `status: 2` event
 * with `extra_info` and the whole audio again unless `exclude_aggregated_audio`. `failAfter`
 * (the `[sim:fail_after=N]` directive) ends the stream after N chunks with an in-band error
 * event (`base_resp` 1000), as MiniMax reports failures mid-stream.
 */
export interface AudioDelivery {
  readonly bytes: Uint8Array;
  readonly format: string;
  readonly extraInfo: Record<string, unknown>;
  readonly stream: boolean;
  readonly url: boolean;
  readonly excludeAggregated: boolean;
  readonly failAfter?: number;
  readonly urlTtlMs?: number;
  /** The simulated generation time, waited before the answer (non-streaming). */
  readonly latencyMs?: number;
}

/** Streamed audio comes in this many chunks at most (fewer for tiny clips). */
const STREAM_CHUNKS = 8;
const MIN_CHUNK_BYTES = 256;

export async function deliverAudio(x: SimExchange, delivery: AudioDelivery): Promise<void> {
  if (delivery.stream) return streamAudio(x, delivery);
  const audio = delivery.url
    ? publishAudio(x, delivery.bytes, delivery.format, delivery.urlTtlMs)
    : Buffer.from(delivery.bytes).toString('hex');
  if (delivery.latencyMs) await new Promise((resolve) => setTimeout(resolve, delivery.latencyMs));
  return x.send(minimaxAnswer({ data: { audio, status: 2 }, extra_info: delivery.extraInfo }));
}

async function streamAudio(x: SimExchange, delivery: AudioDelivery): Promise<void> {
  const trace = traceId();
  const stream = await x.stream({ 'trace-id': trace });
  const event = (fields: Record<string, unknown>, code = 0) =>
    stream.event(
      JSON.stringify({
        ...fields,
        trace_id: trace,
        base_resp: { status_code: code, status_msg: code === 0 ? '' : BUSINESS_CODES[String(code)] },
      }),
    );
  const chunks = chunksOf(delivery.bytes);
  for (const [index, chunk] of chunks.entries()) {
    if (index === delivery.failAfter) {
      await event({ data: null }, 1000);
      return stream.end();
    }
    if (!(await event({ data: { audio: Buffer.from(chunk).toString('hex'), status: 1 } }))) return;
  }
  const whole = delivery.excludeAggregated ? '' : Buffer.from(delivery.bytes).toString('hex');
  await event({ data: { audio: whole, status: 2 }, extra_info: delivery.extraInfo });
  stream.end();
}

function chunksOf(bytes: Uint8Array): Uint8Array[] {
  const size = Math.max(MIN_CHUNK_BYTES, Math.ceil(bytes.length / STREAM_CHUNKS));
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}
