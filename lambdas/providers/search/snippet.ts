import { MAX_SNIPPET_CHARS } from './search-types.js';

/**
 * Text cut to at most `max` characters on a word boundary, whitespace collapsed; a cut text
 * ends with an ellipsis (counted in `max`). A single word longer than half the limit is cut
 * mid-word rather than leaving almost nothing.
 */
export function cutOnWordBoundary(text: string, max = MAX_SNIPPET_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const room = flat.slice(0, max - 1);
  const lastSpace = room.lastIndexOf(' ');
  const kept = lastSpace >= max / 2 ? room.slice(0, lastSpace) : room;
  // A mid-word cut must not split a surrogate pair (an emoji) in half.
  return `${kept.replace(/[\uD800-\uDBFF]$/, '').replace(/[\s,;:.-]+$/, '')}…`;
}
