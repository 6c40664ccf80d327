/** Nearest-rank percentile of already-collected samples (milliseconds). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export const fmtMs = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;

/** A share (0.031) as a percentage (3.1%). */
export const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

export const fmtBytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;

export function table(rows: (string | number)[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => String(row[col]).length)));
  return rows.map((row) => row.map((cell, col) => String(cell).padEnd(widths[col]!)).join('  ')).join('\n');
}
