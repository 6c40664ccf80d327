const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An ISO 8601 date (`YYYY-MM-DD`, meaning its whole UTC day) or date-time with a zone, as epoch
 * milliseconds; undefined when the text is neither, or names no real day (2026-02-30).
 */
export function parseIsoInstant(value: string): { readonly ms: number; readonly isDate: boolean } | undefined {
  const isDate = DATE_ONLY.test(value);
  const ms = isDate || DATE_TIME.test(value) ? Date.parse(isDate ? `${value}T00:00:00Z` : value) : NaN;
  if (Number.isNaN(ms) || (isDate && new Date(ms).toISOString().slice(0, 10) !== value)) return undefined;
  return { ms, isDate };
}
