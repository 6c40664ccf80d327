import type { TransportResponse } from '../providers/http-transport.js';
import { SseParser } from '../providers/sse-parser.js';
import { UpstreamError, upstreamFailure } from '../providers/upstream-failure.js';
import { boundedText, MAX_MINIMAX_ANSWER_BYTES, readMinimaxEnvelope } from './minimax-call.js';

/**
 * Reads MiniMax's streamed speech answer (docs/upstreams.md §6.2): SSE events of hex audio chunks
 * (`status: 1`) and a final `status: 2` event with `extra_info`. Each event is read against
 * MiniMax's envelope, so a failure mid-stream (a non-zero `base_resp`) throws the classified
 * UpstreamError where it happens. An answer that is JSON instead of SSE (MiniMax refuses a
 * request before streaming, inside HTTP 200) is read as a single event.
 */
export type SpeechPiece =
  { readonly kind: 'audio'; readonly bytes: Uint8Array } | { readonly kind: 'done'; readonly usageCharacters?: number };

/** Audio of the longest speech at the highest bitrate is far below this; beyond it, the answer is refused. */
const MAX_AUDIO_BYTES = MAX_MINIMAX_ANSWER_BYTES / 2;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

export async function* speechPieces(response: TransportResponse): AsyncGenerator<SpeechPiece> {
  const trace = response.headers.get('trace-id');
  const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  if (response.status < 200 || response.status > 299 || !isStream) {
    yield* piecesOf(readMinimaxEnvelope(response.status, await boundedText(response), trace).body, 0);
    return;
  }
  const parser = new SseParser();
  let received = 0;
  for await (const chunk of response.body) {
    for (const event of parser.push(chunk)) {
      for (const piece of piecesOf(readMinimaxEnvelope(200, event.data, trace).body, received)) {
        if (piece.kind === 'audio') received += piece.bytes.length;
        if (received > MAX_AUDIO_BYTES) throw malformed(`audio over ${MAX_AUDIO_BYTES} bytes`);
        yield piece;
        if (piece.kind === 'done') return;
      }
    }
  }
  throw new UpstreamError(upstreamFailure('connection', 'MiniMax ended the speech stream before its final event'));
}

/**
 * The pieces of one answer body. The final event may repeat the whole audio (when MiniMax
 * ignores `exclude_aggregated_audio`): after chunks were received, that copy is dropped, never
 * appended.
 */
function piecesOf(body: Readonly<Record<string, unknown>>, alreadyReceived: number): SpeechPiece[] {
  const data = body['data'] as { audio?: unknown; status?: unknown } | null | undefined;
  const audio = typeof data?.audio === 'string' ? data.audio : '';
  if (!HEX.test(audio)) throw malformed('audio that is not hex');
  const final = data?.status === 2;
  const pieces: SpeechPiece[] = [];
  if (audio.length > 0 && !(final && alreadyReceived > 0))
    pieces.push({ kind: 'audio', bytes: Buffer.from(audio, 'hex') });
  if (final) {
    const usage = (body['extra_info'] as { usage_characters?: unknown } | undefined)?.usage_characters;
    pieces.push({ kind: 'done', ...(typeof usage === 'number' && usage >= 0 ? { usageCharacters: usage } : {}) });
  }
  return pieces;
}

const malformed = (what: string) => new UpstreamError(upstreamFailure('malformed', `MiniMax speech: ${what}`));
