import { characterCount, exceedsCharacters, leadingCharacters } from '../schema/text-length.js';
import { MAX_SNIPPET_CHARS } from './search-types.js';

/**
 * Text cut to at most `max` characters (code points, lambdas/schema/text-length.ts) on a word
 * boundary, whitespace collapsed; a cut text ends with an ellipsis (counted in `max`). A single
 * word longer than half the limit is cut mid-word rather than leaving almost nothing; a cut
 * never falls inside an emoji.
 */
export function cutOnWordBoundary(text: string, max = MAX_SNIPPET_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!exceedsCharacters(flat, max)) return flat;
  const room = leadingCharacters(flat, max - 1);
  const lastSpace = room.lastIndexOf(' ');
  const kept = lastSpace >= 0 && characterCount(room.slice(0, lastSpace)) >= max / 2 ? room.slice(0, lastSpace) : room;
  return `${kept.replace(/[\s,;:.-]+$/, '')}…`;
}
