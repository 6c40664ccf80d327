import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CDK_JSON_FEATURE_FLAGS } from './support.js';

/**
 * cdk.json carries the feature flags aws-cdk-lib recommends for new projects (what `cdk init`
 * writes), so the stack gets current behaviour rather than the compatibility defaults; the other
 * infra tests synthesize with them (test/infra/support.ts).
 */
const recommended = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('aws-cdk-lib/recommended-feature-flags.json'), 'utf8'),
) as Record<string, unknown>;

test('cdk.json sets every flag aws-cdk-lib recommends, to the recommended value', () => {
  expect(Object.keys(recommended).length).toBeGreaterThan(50);
  const differing = Object.entries(recommended).filter(
    ([flag, value]) => JSON.stringify(CDK_JSON_FEATURE_FLAGS[flag]) !== JSON.stringify(value),
  );
  expect(differing).toEqual([]);
});
