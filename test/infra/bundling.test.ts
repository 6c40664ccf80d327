import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LAMBDA_BUNDLING } from '../../lib/bundling.js';
import { PROJECT_ROOT } from '../../lib/constructs/endpoint-function.js';
import { routes } from '../../lib/routes.js';
import { build, functionLogicalId, logicalIdOf, syntheticRoute } from './support.js';

// The one test that runs esbuild through the stack (each function about 0.7 s). Every function is
// bundled with the same options (LAMBDA_BUNDLING), so a sample shows them: the handlers that pull
// in the most dependencies (chat, the arena, fashion's jobs), a plain JSON one, one that reads no
// table. That every handler's own code bundles is shown by every integration test, whose runtime
// is one esbuild bundle of all of them (local/build-runtime.mjs), and `npm run bench -- bundles`
// bundles each one as deployed. Plus the fixture, which is also run.
const SAMPLE = new Set(['chat-completions', 'fight', 'fashion-subscribe', 'usage-get', 'health']);
const existing = routes.filter((route) => SAMPLE.has(route.id) && existsSync(join(PROJECT_ROOT, route.entry)));
const fixture = syntheticRoute({ id: 'fixture', path: '/test/fixture', method: 'GET', grants: [] });
const bundled = [...existing, fixture];

describe('bundling', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'gateway-cdk-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  test('the sample is whole: each of its routes is in the manifest', () => {
    expect(existing.map((route) => route.id).sort()).toEqual([...SAMPLE].sort());
  });

  test('the banner gives ESM bundles a require for CommonJS dependencies', () => {
    expect(LAMBDA_BUNDLING.banner).toMatch(/const require = \w*[cC]reateRequire\w*\(import\.meta\.url\)/);
  });

  test(`bundles ${bundled.length} entries as minified ESM with source maps and a require shim`, async () => {
    const { app, stack, template } = build({ routes: bundled }, { bundle: true, outdir });
    app.synth();
    const resources = template.toJSON().Resources;
    for (const route of bundled) {
      const code = resources[functionLogicalId(stack, route.id)].Properties.Code;
      const assetDir = join(outdir, `asset.${String(code.S3Key).replace(/\.zip$/, '')}`);
      const bundle = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
      expect([route.id, existsSync(join(assetDir, 'index.mjs.map'))]).toEqual([route.id, true]);
      expect([route.id, bundle.startsWith(LAMBDA_BUNDLING.banner)]).toEqual([route.id, true]);
      expect(bundle).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      // Minified: no spacing after colons, and on real handlers long lines rather than short indented ones.
      expect([route.id, /statusCode: \d/.test(bundle)]).toEqual([route.id, false]);
      if (bundle.length > 20_000) {
        expect([route.id, bundle.length / bundle.split('\n').length > 500]).toEqual([route.id, true]);
      }
      // The OpenTelemetry API is inside the bundle, never imported: the layer installs no package
      // an import could resolve to (lib/bundling.ts), and the bundled copy finds its SDK through the
      // API's global.
      expect([route.id, /from\s*"@opentelemetry\//.test(bundle)]).toEqual([route.id, false]);
      if (route.id !== fixture.id) {
        expect([route.id, bundle.includes('opentelemetry.js.api.')]).toEqual([route.id, true]);
      }
    }

    // The deployment-time function behind the account role custom resource, bundled the same way; the SDK
    // client it loads is the runtime's own.
    const claimCode = resources[logicalIdOf(stack.api.accountRoleClaim!.handler.fn)].Properties.Code;
    const claimBundle = readFileSync(
      join(outdir, `asset.${String(claimCode.S3Key).replace(/\.zip$/, '')}`, 'index.mjs'),
      'utf8',
    );
    expect(claimBundle.startsWith(LAMBDA_BUNDLING.banner)).toBe(true);
    expect(claimBundle).toMatch(/from"@aws-sdk\/client-api-gateway"/);
    expect(claimBundle).toContain('/cloudwatchRoleArn');

    const fixtureCode = resources[functionLogicalId(stack, fixture.id)].Properties.Code;
    const fixtureBundle = join(outdir, `asset.${String(fixtureCode.S3Key).replace(/\.zip$/, '')}`, 'index.mjs');
    expect(readFileSync(fixtureBundle, 'utf8')).toContain('statusCode:200');
    const { handler } = (await import(pathToFileURL(fixtureBundle).href)) as { handler: () => Promise<unknown> };
    await expect(handler()).resolves.toEqual({ statusCode: 200, body: '{"ok":true}' });
  }, 180_000);
});
