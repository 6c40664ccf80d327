import { characterCount } from '../schema/text-length.js';
import { UpstreamError } from '../providers/upstream-failure.js';
import { MediaError, mediaErrorOf } from './media-errors.js';
import type { AudioAttempt, AudioDeps } from './audio-deployment.js';
import { speechPieces, type SpeechPiece } from './speech-stream.js';
import { minimaxSpeechBody, speechContentType, type SpeechRequest } from './speech-request.js';

/**
 * Text to speech through MiniMax: the audio as it is synthesized. Failures before the first
 * audio byte throw an MediaError (the caller can still answer with a status); a failure after
 * it ends the audio iterable with an error, so the response is cut rather than completed. The
 * call is reported once through `onAttempt`, by characters: MiniMax's `usage_characters`, or
 * the text's length (estimated) when it reported none.
 */
export interface SpeechCallOptions {
  readonly signal: AbortSignal;
  readonly onAttempt: (attempt: AudioAttempt) => void;
  /**
   * Before the upstream call, with the characters it may be billed at the most: may refuse it
   * (a budget that cannot hold it throws). @default every call goes
   */
  readonly admit?: (model: string, characters: number) => Promise<void>;
}

/**
 * MiniMax bills `usage_characters`, which may count a character twice (its pricing counts a
 * Chinese character as two): a speech's bound is twice its length in code points.
 */
export const billedCharactersBound = (text: string): number => 2 * characterCount(text);

export interface SpeechAudio {
  readonly contentType: string;
  readonly audio: AsyncIterable<Uint8Array>;
}

export async function synthesizeSpeech(
  request: SpeechRequest,
  options: SpeechCallOptions,
  deps: AudioDeps,
): Promise<SpeechAudio> {
  const endpoint = await deps.endpoint();
  if (!endpoint) throw new MediaError('not_configured', 'speech is not configured on this deployment');
  await options.admit?.(request.model, billedCharactersBound(request.text));
  const report = reporter(request, options.onAttempt);
  let pieces: AsyncGenerator<SpeechPiece>;
  let first: IteratorResult<SpeechPiece>;
  try {
    const response = await deps.send({
      url: `${endpoint.baseUrl}/t2a_v2`,
      method: 'POST',
      headers: {
        authorization: `Bearer ${endpoint.apiKey}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify(minimaxSpeechBody(request)),
      signal: options.signal,
    });
    report.status = response.status;
    pieces = speechPieces(response);
    first = await pieces.next();
  } catch (error) {
    report.failed(error);
    throw error instanceof UpstreamError ? mediaErrorOf(error.failure, 'text') : error;
  }
  return { contentType: speechContentType(request), audio: audioFrom(first, pieces, report) };
}

async function* audioFrom(
  first: IteratorResult<SpeechPiece>,
  pieces: AsyncGenerator<SpeechPiece>,
  report: Reporter,
): AsyncGenerator<Uint8Array> {
  let settled = false;
  try {
    for (let next = first; !next.done; next = await pieces.next()) {
      if (next.value.kind === 'audio') yield next.value.bytes;
      else {
        report.done(next.value.usageCharacters);
        settled = true;
      }
    }
  } catch (error) {
    report.failed(error);
    settled = true;
    throw error;
  } finally {
    // The client left (the iterable was returned early): MiniMax was asked for all of it.
    if (!settled) report.failed(new Error('client closed'), 'client_closed');
    await pieces.return(undefined);
  }
}

interface Reporter {
  status: number;
  done(usageCharacters: number | undefined): void;
  failed(error: unknown, outcome?: string): void;
}

function reporter(request: SpeechRequest, onAttempt: (attempt: AudioAttempt) => void): Reporter {
  const characters = characterCount(request.text);
  let reported = false;
  const once = (attempt: Omit<AudioAttempt, 'model'>) => {
    if (reported) return;
    reported = true;
    onAttempt({ model: request.model, ...attempt });
  };
  const report: Reporter = {
    status: 0,
    done: (usage) =>
      once({ quantity: usage ?? characters, estimated: usage === undefined, status: report.status, outcome: 'ok' }),
    failed: (error, outcome) =>
      once({
        quantity: outcome === 'client_closed' ? characters : 0,
        estimated: true,
        status: error instanceof UpstreamError ? (error.failure.status ?? report.status) : report.status,
        outcome: outcome ?? (error instanceof UpstreamError ? error.failure.kind : 'error'),
      }),
  };
  return report;
}
