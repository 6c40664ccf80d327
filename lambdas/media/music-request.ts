import { compileConditional } from '../schema/compile.js';
import { invalidMedia } from './media-errors.js';

/**
 * The music endpoint's body (docs/interface.md §4.9) and its translation to MiniMax's `/music_generation`
 * (docs/upstreams.md §6.3). The interface is kept; where MiniMax differs the adapter
 * translates, and combinations MiniMax cannot serve are refused here, before any call:
 * - structure tags: a line that is only a bracketed tag must be one of the interface's (`[Verse]`,
 *   `[Chorus]`, `[Bridge]`, `[Intro]`, `[Outro]`, `[Pre-Chorus]`, `[Hook]`) or one MiniMax adds
 *   (`[Interlude]`, `[Post Chorus]`, `[Transition]`, `[Break]`, `[Build Up]`, `[Inst]`,
 *   `[Solo]`), spelt with a hyphen, a space or neither, any case; it is sent in MiniMax's
 *   spelling (`[Pre-Chorus]` → `[Pre Chorus]`). Any other tag line is refused (MiniMax would sing
 *   it or drop it silently); brackets inside a line of lyrics are lyrics.
 * - `is_instrumental` only with `music-2.5+`, and it needs a prompt (and no lyrics).
 * - MiniMax's songs with vocals need lyrics: with only a prompt, `lyrics_optimizer` is turned on
 *   so MiniMax writes them; `lyrics_optimizer: false` without lyrics is refused.
 */
export const MUSIC_MODELS = ['music-2.5', 'music-2.5+'] as const;
export const MUSIC_OUTPUT_FORMATS = ['url', 'hex'] as const;
export const MAX_PROMPT_CHARACTERS = 2_000;
export const MAX_LYRICS_CHARACTERS = 3_500;

export interface MusicRequestBody {
  prompt?: string;
  lyrics?: string;
  model?: (typeof MUSIC_MODELS)[number];
  is_instrumental?: boolean;
  lyrics_optimizer?: boolean;
  output_format?: (typeof MUSIC_OUTPUT_FORMATS)[number];
}

const text = (max: number) => ({
  type: 'string',
  minLength: 1,
  maxLength: max,
  pattern: '\\S',
  'x-message': {
    minLength: 'must be text that is not empty or blank',
    pattern: 'must be text that is not empty or blank',
    maxLength: `must be at most ${max} characters`,
  },
});

/** The body of POST /api/v1/media/music (docs/interface.md §4.9); the OpenAPI document shows this object. */
export const musicRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    prompt: text(MAX_PROMPT_CHARACTERS),
    lyrics: text(MAX_LYRICS_CHARACTERS),
    model: {
      type: 'string',
      enum: [...MUSIC_MODELS],
    },
    is_instrumental: { type: 'boolean' },
    lyrics_optimizer: { type: 'boolean' },
    output_format: {
      type: 'string',
      enum: [...MUSIC_OUTPUT_FORMATS],
    },
  },
};

export const musicRequestValidator = compileConditional<MusicRequestBody>(musicRequestSchema);

/** MiniMax's spelling of each structure tag, by its name folded (lower case, no spaces or hyphens). */
const TAGS: Readonly<Record<string, string>> = Object.fromEntries(
  [
    'Intro',
    'Verse',
    'Pre Chorus',
    'Chorus',
    'Bridge',
    'Outro',
    'Hook',
    'Interlude',
    'Post Chorus',
    'Transition',
    'Break',
    'Build Up',
    'Inst',
    'Solo',
  ].map((tag) => [fold(tag), tag]),
);

function fold(tag: string): string {
  return tag.toLowerCase().replace(/[\s_-]+/g, '');
}

const TAG_LINE = /^(\s*)\[([^\]]*)\](\s*)$/;

/** The lyrics with every tag line in MiniMax's spelling; an unknown tag line is a 400 naming `lyrics`. */
export function minimaxLyrics(lyrics: string): string {
  return lyrics
    .split('\n')
    .map((line, index) => {
      const match = TAG_LINE.exec(line);
      if (!match) return line;
      const tag = TAGS[fold(match[2]!)];
      if (!tag)
        throw invalidMedia(
          'lyrics',
          `lyrics: line ${index + 1}: unknown structure tag [${match[2]!.slice(0, 40)}]; use [Verse], [Chorus], [Bridge], [Intro], [Outro], [Pre-Chorus], [Hook] (or MiniMax's [Interlude], [Post Chorus], [Transition], [Break], [Build Up], [Inst], [Solo])`,
        );
      return `${match[1]}[${tag}]${match[3]}`;
    })
    .join('\n');
}

/** MiniMax's request for a validated body: the cross-field rules above, then the translation. */
export function minimaxMusicBody(body: MusicRequestBody): Record<string, unknown> {
  const model = body.model ?? 'music-2.5';
  const instrumental = body.is_instrumental === true;
  if (body.prompt === undefined && body.lyrics === undefined)
    throw invalidMedia('prompt', 'prompt: a prompt or lyrics is required');
  if (instrumental && model !== 'music-2.5+')
    throw invalidMedia('is_instrumental', 'is_instrumental: only with model music-2.5+');
  if (instrumental && body.prompt === undefined)
    throw invalidMedia('prompt', 'prompt: an instrumental is described by its prompt, which is required');
  if (instrumental && body.lyrics !== undefined)
    throw invalidMedia('lyrics', 'lyrics: an instrumental has none; omit lyrics or is_instrumental');
  if (!instrumental && body.lyrics === undefined && body.lyrics_optimizer === false)
    throw invalidMedia('lyrics', 'lyrics: a song with vocals needs lyrics, or lyrics_optimizer to write them');
  const writesLyrics = !instrumental && body.lyrics === undefined;
  return {
    model,
    ...(body.prompt === undefined ? {} : { prompt: body.prompt }),
    ...(body.lyrics === undefined ? {} : { lyrics: minimaxLyrics(body.lyrics) }),
    ...(instrumental ? { is_instrumental: true } : {}),
    ...(writesLyrics || body.lyrics_optimizer !== undefined
      ? { lyrics_optimizer: writesLyrics || body.lyrics_optimizer }
      : {}),
    output_format: body.output_format ?? 'url',
    audio_setting: { sample_rate: 44100, bitrate: 256000, format: 'mp3' },
  };
}
