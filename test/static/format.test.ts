import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import * as prettier from 'prettier';

/**
 * Every source file is formatted as Prettier would (.prettierrc.json): `npm run format` fixes
 * it. CI runs only `npm test`, so the check runs here.
 */
test('source files are formatted', async () => {
  const root = resolve(import.meta.dirname, '../..');
  const files = execFileSync('git', ['ls-files', 'lambdas', 'lib', 'bin', 'local', 'test', 'bench'], { cwd: root })
    .toString()
    .split('\n')
    .filter((file) => /\.(ts|mjs|js)$/.test(file));
  expect(files).toContain('test/static/format.test.ts');
  const unformatted: string[] = [];
  for (const file of files) {
    const path = resolve(root, file);
    const options = await prettier.resolveConfig(path);
    if (!(await prettier.check(readFileSync(path, 'utf8'), { ...options, filepath: path })))
      unformatted.push(relative(root, path));
  }
  expect(unformatted).toEqual([]);
}, 120_000);
