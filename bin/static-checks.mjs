// The static checks of `npm test`, as their own step rather than jest tests under a timeout:
// the compiler in strict mode, ESLint (eslint.config.js) and Prettier's check (.prettierrc.json).
// Each runs whole and lists every finding; the process exits 1 if any check found something.
// `npm run format` fixes formatting.
import { execFile, execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';

const root = resolve(import.meta.dirname, '..');
/** The folders `npm run format` formats and Prettier's check covers. */
const FORMATTED = ['lambdas', 'lib', 'bin', 'local', 'test', 'bench'];

/** tsc on the whole program: ts-jest compiles each test file alone and reports no type errors. */
function types() {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => done(error ? stdout.split('\n').filter(Boolean) : []),
    );
  });
}

async function lint() {
  const results = await new ESLint({ cwd: root }).lintFiles(['.']);
  const linted = results.map((result) => relative(root, result.filePath));
  // A config whose ignores swallowed everything would pass silently: this very file must be linted.
  if (!linted.includes('bin/static-checks.mjs')) return ['eslint did not lint bin/static-checks.mjs'];
  return results.flatMap((result) =>
    result.messages.map(
      (m) =>
        `${relative(root, result.filePath)}:${m.line}:${m.column} ${m.severity === 2 ? 'error' : 'warning'} ` +
        `${m.message} (${m.ruleId ?? 'eslint'})`,
    ),
  );
}

async function format() {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...FORMATTED], {
    cwd: root,
  })
    .toString()
    .split('\n')
    .filter((file) => /\.(ts|mts|mjs|js)$/.test(file));
  if (!files.includes('bin/static-checks.mjs')) return ['the format check did not see bin/static-checks.mjs'];
  const unformatted = [];
  for (const file of files) {
    const path = resolve(root, file);
    const options = await prettier.resolveConfig(path);
    if (!(await prettier.check(await readFile(path, 'utf8'), { ...options, filepath: path })))
      unformatted.push(`${file} is not formatted (npm run format)`);
  }
  return unformatted;
}

const checks = { types, lint, format };
let failed = false;
// Two at a time at most: the compiler in its own process, lint and format on this one's thread.
const outcomes = await Promise.all(
  Object.entries(checks).map(async ([name, check]) => {
    const started = performance.now();
    const findings = await check();
    return { name, findings, seconds: ((performance.now() - started) / 1000).toFixed(1) };
  }),
);
for (const { name, findings, seconds } of outcomes) {
  if (findings.length === 0) console.log(`static check ${name}: passed (${seconds} s)`);
  else {
    failed = true;
    console.error(`static check ${name}: ${findings.length} finding(s)\n  ${findings.join('\n  ')}`);
  }
}
process.exit(failed ? 1 : 0);
