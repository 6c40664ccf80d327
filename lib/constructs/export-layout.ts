/**
 * Where the usage exports live in the exports bucket, shared by the stack (the export machine,
 * the Glue tables, the lifecycle rules) and `npm run usage:export`, so both write where the
 * tables read. docs/finance.md draws the layout.
 */

/** Incremental exports, one folder per UTC day: `incremental/day=YYYY-MM-DD/AWSDynamoDB/data/`. */
export const INCREMENTAL_PREFIX = 'incremental';
/** On-demand full exports (`full/AWSDynamoDB/<export id>/data/`). */
export const FULL_PREFIX = 'full';

/**
 * The S3 prefix of one day's incremental export. Each export gets its day's folder (DynamoDB
 * puts all incremental data files of a prefix in one `AWSDynamoDB/data/` folder), so Athena can
 * project the `day` partition from the key instead of reading every export.
 */
export const incrementalDayPrefix = (day: string) => `${INCREMENTAL_PREFIX}/day=${day}`;

/**
 * Before the day folders, every incremental export wrote here; `usage_incremental_legacy` reads
 * what is left of them (nothing new lands here).
 */
export const LEGACY_INCREMENTAL_DATA = `${INCREMENTAL_PREFIX}/AWSDynamoDB/data/`;

/** The first day the `day` partition is projected from; no day folder is older. */
export const FIRST_PARTITION_DAY = '2025-01-01';
