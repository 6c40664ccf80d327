// Jest's transform of TypeScript: esbuild strips the types, file by file, as tsconfig.json's
// `isolatedModules` already requires every file to allow. Type errors are the static step's
// (bin/static-checks.mjs runs tsc on the whole program), so nothing here checks types.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { transformSync, version } from 'esbuild';

const self = createHash('sha256')
  .update(readFileSync(new URL(import.meta.url)))
  .update(version)
  .digest('hex');

export default {
  getCacheKey(source, path) {
    return createHash('sha256').update(self).update(path).update('\0').update(source).digest('hex');
  },
  process(source, path) {
    const { code, map } = transformSync(source, {
      loader: 'ts',
      format: 'esm',
      target: 'node24',
      sourcefile: path,
      sourcemap: 'external',
      // As tsc emits for tsconfig.json's target: class fields defined, not assigned.
      tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
    });
    return { code, map };
  },
};
