/**
 * What "character" means everywhere the API states a length: one Unicode code point. That is
 * what "at most N characters" says to a caller, and what JSON Schema's `maxLength` counts; Ajv
 * counts it so too (its `unicode` option, left on in lambdas/schema/compile.ts). JavaScript's
 * `length` counts UTF-16 units instead, two for an emoji beyond the Basic Multilingual Plane,
 * so a hand check with it would refuse half the emoji a schema accepts. A lone surrogate counts
 * as one character, as Ajv counts it. These read the string in place, without copying it.
 */

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** Whether a surrogate pair (one character, two units) starts at `index`. */
function pairAt(text: string, index: number): boolean {
  return isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1));
}

export function characterCount(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += pairAt(text, index) ? 2 : 1) count += 1;
  return count;
}

/**
 * `characterCount(text) > max`, reading nothing when the units alone decide it: a text of at
 * most `max` units has at most `max` characters, one of more than `2·max` units more than `max`.
 */
export function exceedsCharacters(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  return characterCount(text) > max;
}

/** The first `max` characters of `text` (all of it when shorter); never half an emoji. */
export function leadingCharacters(text: string, max: number): string {
  let end = 0;
  for (let count = 0; count < max && end < text.length; count++) end += pairAt(text, end) ? 2 : 1;
  return text.slice(0, end);
}

/** The last `count` characters of `text` (all of it when shorter); never half an emoji. */
export function trailingCharacters(text: string, count: number): string {
  let start = text.length;
  for (let taken = 0; taken < count && start > 0; taken++) start -= start >= 2 && pairAt(text, start - 2) ? 2 : 1;
  return text.slice(start);
}
