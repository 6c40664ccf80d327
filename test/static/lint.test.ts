import { ESLint } from 'eslint';
import { relative, resolve } from 'node:path';

/**
 * The whole repository passes ESLint (eslint.config.js). CI runs only `npm test`, so the
 * linter runs here too, through its Node API, and a failure lists every finding.
 */
test('eslint passes on the whole repository', async () => {
  const root = resolve(import.meta.dirname, '../..');
  const eslint = new ESLint({ cwd: root });
  const results = await eslint.lintFiles(['.']);
  // Guard against a config whose ignores swallow everything: this very file must be linted.
  expect(results.map((result) => relative(root, result.filePath))).toContain('test/static/lint.test.ts');
  const findings = results.flatMap((result) =>
    result.messages.map(
      (m) =>
        `${relative(root, result.filePath)}:${m.line}:${m.column} ${m.severity === 2 ? 'error' : 'warning'} ` +
        `${m.message} (${m.ruleId ?? 'eslint'})`,
    ),
  );
  expect(findings).toEqual([]);
}, 120_000);
