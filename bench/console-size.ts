import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildConsole, consoleDist } from '../local/build-console.mjs';
import { fmtBytes, table } from './stats.js';
import { printVerdicts, verdict } from './verdicts.js';

/** What a first visit to the console may download in script, gzipped (issue 24: fast on a phone). */
export const CONSOLE_SCRIPT_BUDGET_BYTES = 150 * 1024;

/**
 * Builds the console as `npm start` does (local/build-console.mjs) and weighs what a browser
 * downloads: each file raw and gzipped (level 9, as a CDN compresses), the scripts' total against
 * the budget.
 */
export async function benchConsoleSize(): Promise<void> {
  await buildConsole();
  const files = listFiles(consoleDist);
  const rows: (string | number)[][] = [['file', 'raw', 'gzipped']];
  let scripts = 0;
  for (const file of files) {
    const bytes = readFileSync(join(consoleDist, file));
    const gzipped = gzipSync(bytes, { level: 9 }).length;
    if (file.endsWith('.js')) scripts += gzipped;
    rows.push([file, fmtBytes(bytes.length), fmtBytes(gzipped)]);
  }
  console.log('\nConsole build (console/, Vite; what a first visit downloads)\n');
  console.log(table(rows));
  printVerdicts([verdict('console script, gzipped', scripts, CONSOLE_SCRIPT_BUDGET_BYTES, fmtBytes)]);
}

function listFiles(folder: string, prefix = ''): string[] {
  return readdirSync(join(folder, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(folder, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}
