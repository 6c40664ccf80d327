import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The whole repository type-checks in strict mode. ts-jest compiles each test in isolation
 * and does not report every type error, so CI runs the compiler itself.
 */
test('tsc --noEmit passes on the whole repository', () => {
  const root = resolve(import.meta.dirname, '../..');
  try {
    execFileSync(process.execPath, [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: root,
      stdio: 'pipe',
    });
  } catch (error) {
    const output = (error as { stdout?: Buffer }).stdout?.toString() ?? String(error);
    throw new Error(`type errors:\n${output}`, { cause: error });
  }
}, 120_000);
