/**
 * Whether every read of a table in a query is pruned by a range on its partition column: each
 * `FROM <table>` is followed, in its own query block, by a WHERE whose top-level conjuncts
 * (ANDs outside parentheses, the AND of a BETWEEN excepted) include `<column> BETWEEN a AND b`,
 * and no top-level OR that could let rows of other partitions through. Enough SQL for the
 * named queries: no comments, no string literal holding a parenthesis.
 */
export function readsOnlyPartitionRange(sql: string, table: string, column: string): boolean {
  const reads = [...sql.matchAll(new RegExp(`\\bFROM\\s+${escape(table)}(?![\\w."])`, 'gi'))];
  if (reads.length === 0) return false;
  return reads.every((read) => {
    const block = enclosingBlockAfter(sql, read.index + read[0].length);
    const where = /^\s*(?:AS\s+)?(?:\w+\s+)?WHERE\b([\s\S]*)$/i.exec(block);
    if (!where) return false;
    const conjuncts = topLevelConjuncts(clauseEnd(where[1]!));
    if (conjuncts === undefined) return false;
    const range = new RegExp(`^${column}\\s+BETWEEN\\s+\\S+\\s+AND\\s+\\S+$`, 'i');
    return conjuncts.some((conjunct) => range.test(conjunct));
  });
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text from `start` to the parenthesis closing the block it is in (or the end). */
function enclosingBlockAfter(sql: string, start: number): string {
  let depth = 0;
  for (let at = start; at < sql.length; at++) {
    if (sql[at] === '(') depth++;
    else if (sql[at] === ')') {
      if (depth === 0) return sql.slice(start, at);
      depth--;
    }
  }
  return sql.slice(start);
}

/** A WHERE clause ends where its block's GROUP BY, ORDER BY, HAVING or LIMIT begins. */
function clauseEnd(text: string): string {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    if (text[at] === '(') depth++;
    else if (text[at] === ')') depth--;
    else if (
      depth === 0 &&
      /^\b(GROUP\s+BY|ORDER\s+BY|HAVING|LIMIT)\b/i.test(text.slice(at)) &&
      /\W/.test(text[at - 1] ?? ' ')
    )
      return text.slice(0, at);
  }
  return text;
}

/** The clause split at its top-level ANDs; undefined when it has a top-level OR. */
function topLevelConjuncts(clause: string): string[] | undefined {
  const tokens = clause.match(/\(|\)|'[^']*'|"[^"]*"|[^\s()]+/g) ?? [];
  const conjuncts: string[][] = [[]];
  let depth = 0;
  let betweenOpen = false;
  for (const token of tokens) {
    const word = token.toUpperCase();
    if (token === '(') depth++;
    if (token === ')') depth--;
    if (depth === 0 && word === 'OR') return undefined;
    if (depth === 0 && word === 'BETWEEN') betweenOpen = true;
    if (depth === 0 && word === 'AND') {
      if (betweenOpen) betweenOpen = false;
      else {
        conjuncts.push([]);
        continue;
      }
    }
    conjuncts.at(-1)!.push(token);
  }
  return conjuncts.map((words) => words.join(' '));
}
