// Parsed expressions kept, for the embedded DynamoDB's CPU.
//
// dynalite parses every expression of every call with a generated PEG parser, and that parse
// was the largest single item of its request handling under the pinned benchmark (about a tenth
// of the database's CPU per gateway request): every ledger entry becomes a put carrying the same
// `attribute_not_exists(#key)` (local/dynamodb-partiql.mjs). An expression without
// ExpressionAttributeValues parses to the same tree whatever the call, given the same
// ExpressionAttributeNames (the tree holds the names they resolve to), so that tree is kept per
// parser, text and names, with the names the parse used, and each call is given its own copy
// (dynalite keeps the tree on the call's input) and has those names marked used again (dynalite
// refuses a call whose names go unused). An expression with values is parsed as before: its tree
// holds them. A text that fails to parse is never kept, so every refusal is dynalite's own, made
// afresh.
import { createRequire } from 'node:module';

const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));

/** Distinct texts (with their names) kept per parser; a caller sending ever new ones empties it and starts again. */
export const KEPT_EXPRESSIONS = 1_000;

/** Installs the cache on dynalite's condition parser (conditions, key conditions, filters). */
export function installParsedExpressions(capacity = KEPT_EXPRESSIONS) {
  keepParses(dynaliteRequire('./db/conditionParser'), capacity);
}

/** Exported for its unit test: wraps `parser.parse(text, { context })` as dynalite calls it. */
export function keepParses(parser, capacity) {
  const parse = parser.parse;
  const kept = new Map();
  parser.parse = function (text, options) {
    const context = options?.context;
    if (!context || context.attrVals != null || typeof text !== 'string') return parse.call(this, text, options);
    const names = context.attrNames;
    const unused = context.unusedAttrNames ?? {};
    const key = names == null ? text : `${text}\n${JSON.stringify(names)}`;
    let parsed = kept.get(key);
    if (parsed === undefined) {
      const unusedBefore = Object.keys(unused);
      const tree = parse.call(this, text, options);
      parsed = { tree, used: unusedBefore.filter((name) => !Object.hasOwn(unused, name)) };
      if (kept.size >= capacity) kept.clear();
      kept.set(key, parsed);
    } else {
      for (const name of parsed.used) delete unused[name];
    }
    return copyOf(parsed.tree);
  };
  return parser;
}

/**
 * A tree's own copy. A tree kept here is plain data (objects, arrays, strings, booleans, null:
 * an expression without values holds no attribute value, and names resolve to strings), so a plain walk copies it whole, at a
 * tenth of what structuredClone costs for such a small tree.
 */
function copyOf(value) {
  if (Array.isArray(value)) return value.map(copyOf);
  if (value === null || typeof value !== 'object') return value;
  const copy = {};
  for (const key of Object.keys(value)) copy[key] = copyOf(value[key]);
  return copy;
}
