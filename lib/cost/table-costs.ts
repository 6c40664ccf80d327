/** Cost lines and the plain-text tables `npm run cost` prints them in. */

export interface CostLine {
  readonly item: string;
  /** USD. */
  readonly usd: number;
  /** How the figure was reached: the count and unit price, or the assumption. */
  readonly basis: string;
}

export const total = (lines: readonly CostLine[]) => lines.reduce((sum, line) => sum + line.usd, 0);

/** Dollars, with four decimals below a dollar so that small per-unit figures stay visible. */
export const money = (usd: number) => `$${usd.toFixed(usd < 1 ? 4 : 2)}`;

/** A count for reading: `48,000`, `0.5`. */
export const readable = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** Bytes as GB (1024³, as AWS meters them) for reading. */
export const gigabytes = (bytes: number) => `${(bytes / 1024 ** 3).toPrecision(3)} GB`;

/** One line per item (figure, then basis) and a total. */
export function table(title: string, lines: readonly CostLine[]): string {
  const width = Math.max(...lines.map((line) => line.item.length), 'Total'.length);
  const rows = lines.map((line) => `  ${line.item.padEnd(width)}  ${money(line.usd).padStart(10)}  ${line.basis}`);
  return [title, ...rows, `  ${'Total'.padEnd(width)}  ${money(total(lines)).padStart(10)}`].join('\n');
}

/** A grid: the first column left-aligned (names), the others right-aligned (figures). */
export function grid(title: string, header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `  ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}`;
  return [title, line(header), ...rows.map(line)].join('\n');
}

/** A paragraph as lines of at most `width` characters, broken between words. */
export function wrap(paragraph: string, width = 96): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of paragraph.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}
