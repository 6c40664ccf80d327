/**
 * JSON with object keys sorted (by UTF-16 code units) at every depth, so that values differing
 * only in key order have one text: cache keys, idempotency fingerprints and schema `enum`/`const`
 * membership all compare by it. Keys whose value is undefined are left out, as JSON.stringify
 * does. Recursive: callers pass values already bounded in depth (lambdas/schema/json-limits.ts).
 * Built by concatenation, with no intermediate arrays: it runs on every cached chat request and
 * on every item a `uniqueItems` schema checks.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${text}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let text = '{';
  for (const key of keys) {
    const item = object[key];
    if (item === undefined) continue;
    text += (text.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + canonicalJson(item);
  }
  return `${text}}`;
}
