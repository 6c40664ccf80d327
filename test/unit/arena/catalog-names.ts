/** Catalog names as the masking tests embed and look for them: written apart from the filter under test. */

import fc from 'fast-check';
import { FAMILIES } from '../../../lambdas/catalog/model-catalog.js';

/** Every catalog name the brief requires masked, as the catalog writes it. */
export const CATALOG_NAMES: readonly string[] = [
  ...new Set(
    FAMILIES.flatMap((f) => [
      f.alias,
      ...f.aliases,
      f.name,
      f.owner,
      f.defaultModel,
      ...f.routes.flatMap((r) => [r.model, r.model.slice(r.model.indexOf('/') + 1)]),
    ]),
  ),
];

/** `name` with each letter in a random case. */
export const randomCase = (name: string): fc.Arbitrary<string> =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''));

const isTokenChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** Whether `name` occurs in `text` as a whole token, in any case. */
export function containsName(text: string, name: string): boolean {
  const haystack = text.toLowerCase();
  const needle = name.toLowerCase();
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1))
    if (!isTokenChar(haystack[at - 1]) && !isTokenChar(haystack[at + needle.length])) return true;
  return false;
}
