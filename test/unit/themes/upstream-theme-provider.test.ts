import { seededRandom } from '../../../lambdas/arena/seeded-random.js';
import { send } from '../../../lambdas/providers/http-transport.js';
import { EMBEDDED_CATALOG } from '../../../lambdas/themes/catalog/theme-catalog.js';
import { ThemeError } from '../../../lambdas/themes/theme-errors.js';
import { chooseTheme, type ThemeDeps } from '../../../lambdas/themes/theme-selection.js';
import { MAX_CATALOG_BYTES, upstreamThemeProvider } from '../../../lambdas/themes/upstream-theme-provider.js';
import { startThemeUpstream, UPSTREAM_CATALOG, type ThemeUpstream } from '../../support/theme-upstream.js';

/** The core with a real upstream provider over loopback HTTP. */
let upstream: ThemeUpstream;
beforeAll(async () => {
  upstream = await startThemeUpstream(UPSTREAM_CATALOG);
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.status = 200;
  upstream.body = UPSTREAM_CATALOG;
  upstream.requests = 0;
});

const deps = (url = upstream.url): ThemeDeps => ({
  catalog: EMBEDDED_CATALOG,
  provider: upstreamThemeProvider(url, send),
  random: seededRandom('upstream'),
  signal: new AbortController().signal,
});

it('answers from the upstream catalog, not the embedded one, with the upstream as source', async () => {
  const answer = await chooseTheme({ id: 'upstream-game' }, deps());
  expect(answer).toMatchObject({
    id: 'upstream-game',
    platform: 'game',
    content: '<design-system>\n# Upstream Game\n</design-system>',
  });
  expect(answer.source).toEqual({
    provider: 'loopback-themes',
    url: upstream.url,
    theme_url: `${upstream.url}/upstream-game`,
  });
  await expect(chooseTheme({ id: 'ledger-slate' }, deps())).rejects.toMatchObject({ kind: 'not_found' });
  await expect(chooseTheme({ platform: 'desktop-web' }, deps())).resolves.toMatchObject({ id: 'upstream-web' });
});

it('leaves out upstream themes that are not well formed', async () => {
  await expect(chooseTheme({ id: 'malformed' }, deps())).rejects.toMatchObject({ kind: 'not_found' });
});

it.each([500, 404, 429, 302])('reports an upstream %i as upstream_failed', async (status) => {
  upstream.status = status;
  const error = await chooseTheme({}, deps()).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ThemeError);
  expect(error).toMatchObject({ kind: 'upstream_failed' });
  expect((error as Error).message).toContain(String(status));
});

it('reports an unusable body or an unreachable provider as upstream_failed', async () => {
  upstream.body = { nothing: 'here' };
  await expect(chooseTheme({}, deps())).rejects.toMatchObject({ kind: 'upstream_failed' });
  await expect(chooseTheme({}, deps('http://127.0.0.1:1/themes'))).rejects.toMatchObject({ kind: 'upstream_failed' });
});

it('checks the query before calling the upstream', async () => {
  await expect(chooseTheme({ platform: 'console' }, deps())).rejects.toMatchObject({ kind: 'invalid_request' });
  expect(upstream.requests).toBe(0);
});

it('keeps a catalog read for cacheMs, then asks again; a failure is not kept', async () => {
  let clock = 0;
  const provider = upstreamThemeProvider(upstream.url, send, { cacheMs: 1_000, now: () => clock });
  const signal = new AbortController().signal;
  await provider.fetchCatalog(signal);
  upstream.status = 500;
  clock = 999;
  await expect(provider.fetchCatalog(signal)).resolves.toMatchObject({ provider: 'loopback-themes' });
  expect(upstream.requests).toBe(1);
  clock = 1_000;
  await expect(provider.fetchCatalog(signal)).rejects.toMatchObject({ kind: 'upstream_failed' });
  upstream.status = 200;
  await provider.fetchCatalog(signal);
  expect(upstream.requests).toBe(3);
});

it('refuses a catalog over MAX_CATALOG_BYTES as upstream_failed without reading it all', async () => {
  upstream.body = {
    themes: [{ id: 'huge', name: 'Huge', platform: 'game', weight: 1, content: 'x'.repeat(MAX_CATALOG_BYTES) }],
  };
  const error = await chooseTheme({}, deps()).catch((caught: unknown) => caught);
  expect(error).toMatchObject({ kind: 'upstream_failed' });
  expect((error as Error).message).toContain(`more than ${MAX_CATALOG_BYTES} bytes`);
});
