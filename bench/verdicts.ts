import { table } from './stats.js';

/** A target's row in a section's PASS/MISS table. */
export interface Verdict {
  readonly metric: string;
  readonly measured: string;
  readonly target: string;
  readonly pass: boolean;
}

export function verdict(
  metric: string,
  value: number,
  limit: number,
  fmt: (v: number) => string,
  kind: 'max' | 'min' = 'max',
): Verdict {
  const pass = kind === 'max' ? value <= limit : value >= limit;
  return { metric, measured: fmt(value), target: `${kind === 'max' ? '≤' : '≥'} ${fmt(limit)}`, pass };
}

export function printVerdicts(rows: readonly Verdict[]): void {
  console.log('');
  console.log(
    table([
      ['metric', 'measured', 'target', 'verdict'],
      ...rows.map((v) => [v.metric, v.measured, v.target, v.pass ? 'PASS' : 'MISS']),
    ]),
  );
}
