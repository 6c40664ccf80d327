/**
 * Athena's named queries for finance, over the incremental export table. Every query reads the
 * ledger (one row per metered event), never the day totals: a day total is rewritten by every
 * request of its day, so it appears in several exports. A ledger entry is written once, but an
 * export re-run over an overlapping window carries it again, and an entry of the unsharded
 * ledger copied to its shard (`npm run usage:migrate`) is there twice under two partition keys:
 * `ledger` keeps one copy per account and sort key (which holds the request id and sequence).
 *
 * Every query reads only the export days its two execution parameters name (`?`, the first and
 * last `day`, `YYYY-MM-DD`, inclusive): the `day` partition is projected, so Athena lists and
 * scans those days' folders and no others, and the workgroup's bytes-scanned limit binds only a
 * range of many days. `day` is the day an entry was written (exported), which is the entry's own
 * day except for an entry written after midnight (a request that ran across it, a redriven
 * retry): it is counted, under its own day, in the range holding the day it was written, so
 * consecutive ranges count every entry once.
 */
export interface UsageQuery {
  readonly name: string;
  readonly description: string;
  readonly sql: string;
}

/** The caller's range of export days: Athena prunes the projected `day` partition to it. */
export const DAY_RANGE = 'day BETWEEN ? AND ?';

const ledger = (table: string) => `WITH ledger AS (
  SELECT item FROM (
    SELECT newimage AS item,
      row_number() OVER (
        PARTITION BY newimage.accountid.s, newimage.sk.s
        ORDER BY CAST(metadata.writetimestampmicros.n AS bigint) DESC
      ) AS copy
    FROM ${table}
    WHERE ${DAY_RANGE} AND newimage.type.s = 'ledger'
  )
  WHERE copy = 1
)`;

const COST_USD = 'CAST(sum(CAST(item.costmicrousd.n AS bigint)) AS decimal(20, 6)) / 1000000 AS cost_usd';

export function usageQueries(database: string, table: string): UsageQuery[] {
  const from = `${ledger(`"${database}"."${table}"`)}\n`;
  return [
    {
      name: 'cost-by-account-and-model-per-month',
      description:
        'Requests, tokens and cost (USD) per account, model and calendar month (UTC); parameters: first and last export day',
      sql: `${from}SELECT item.accountid.s AS account_id, item.model.s AS model, substr(item.day.s, 1, 7) AS month,
  count(*) AS requests,
  sum(CAST(item.totaltokens.n AS bigint)) AS tokens,
  ${COST_USD},
  count_if(item.priced.bool = false) AS unpriced_requests
FROM ledger
GROUP BY item.accountid.s, item.model.s, substr(item.day.s, 1, 7)
ORDER BY month, account_id, model`,
    },
    {
      name: 'tokens-and-units-by-key-per-day',
      description:
        'Tokens and non-token units (searches, characters, songs, seconds, credits) per API key and day; parameters: first and last export day',
      sql: `${from}SELECT item.accountid.s AS account_id, item.keyid.s AS key_id, item.day.s AS day,
  coalesce(item.unit.s, 'tokens') AS unit,
  count(*) AS requests,
  sum(CAST(item.prompttokens.n AS bigint)) AS prompt_tokens,
  sum(CAST(item.completiontokens.n AS bigint)) AS completion_tokens,
  sum(CAST(coalesce(item.quantity.n, '0') AS double)) AS units,
  ${COST_USD}
FROM ledger
GROUP BY item.accountid.s, item.keyid.s, item.day.s, coalesce(item.unit.s, 'tokens')
ORDER BY day, account_id, key_id, unit`,
    },
    {
      name: 'cost-by-route',
      description:
        'Requests, tokens and cost (USD) per route (the manifest id the calls came through) and month; parameters: first and last export day',
      sql: `${from}SELECT item.route.s AS route, substr(item.day.s, 1, 7) AS month,
  count(*) AS requests,
  sum(CAST(item.totaltokens.n AS bigint)) AS tokens,
  ${COST_USD}
FROM ledger
GROUP BY item.route.s, substr(item.day.s, 1, 7)
ORDER BY month, cost_usd DESC`,
    },
  ];
}
