import { createKey, provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { LocalGateway } from '../../local/child-runtime.js';
import { startThemeUpstream, UPSTREAM_CATALOG, type ThemeUpstream } from '../support/theme-upstream.js';

/**
 * GET /api/v1/themes over HTTP against the local runtime: the embedded catalog by default,
 * and a configured upstream provider (a loopback server) through THEMES_PROVIDER_URL.
 */
let embedded: LocalGateway;
let proxied: LocalGateway;
let upstream: ThemeUpstream;
let embeddedKey: string;
let proxiedKey: string;

beforeAll(async () => {
  upstream = await startThemeUpstream(UPSTREAM_CATALOG);
  [embedded, proxied] = await Promise.all([
    LocalGateway.start({ POWERTOOLS_LOG_LEVEL: 'WARN' }),
    LocalGateway.start({ POWERTOOLS_LOG_LEVEL: 'WARN', THEMES_PROVIDER_URL: upstream.url }),
  ]);
  embeddedKey = (await createKey(embedded, await provisionAccount(embedded, 'themes'))).key;
  proxiedKey = (await createKey(proxied, await provisionAccount(proxied, 'themes-up'))).key;
}, 120_000);
afterAll(async () => {
  await Promise.all([embedded?.dispose(), proxied?.dispose()]);
  await upstream?.close();
});

const themes = (gateway: LocalGateway, key: string, query = '') =>
  call(gateway.url(`/api/v1/themes${query}`), { headers: bearer(key) });

describe('embedded catalog', () => {
  it('answers the theme named by id in the envelope, content wrapped, with rate headers', async () => {
    const answer = await themes(embedded, embeddedKey, '?id=neon-arcade&platform=mobile-app');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      success: true,
      data: {
        id: 'neon-arcade',
        name: 'Neon Arcade',
        platform: 'game',
        weight: expect.any(Number),
        source: { provider: 'embedded', url: '/api/v1/themes', theme_url: '/api/v1/themes?id=neon-arcade' },
      },
    });
    expect(answer.body.data.content).toMatch(/^<design-system>\n# Neon Arcade\n[\s\S]*\n<\/design-system>$/);
    expect(answer.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  it('answers 404 NOT_FOUND naming an unknown id', async () => {
    const answer = await themes(embedded, embeddedKey, '?id=no-such-theme');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND', field: 'id' } });
    expect(answer.body.error.message).toContain('no-such-theme');
  });

  it.each(['console', 'GAME', '%20'])('answers 400 naming platform for platform=%s', async (platform) => {
    const answer = await themes(embedded, embeddedKey, `?platform=${platform}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST', field: 'platform' } });
  });

  it('answers only themes of the requested platform', async () => {
    for (const platform of ['desktop-web', 'mobile-app', 'game']) {
      for (let i = 0; i < 5; i++) {
        const answer = await themes(embedded, embeddedKey, `?platform=${platform}`);
        expect(answer.status).toBe(200);
        expect(answer.body.data.platform).toBe(platform);
      }
    }
  });

  it('answers a random theme with neither id nor platform', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const answer = await themes(embedded, embeddedKey);
      expect(answer.status).toBe(200);
      seen.add(answer.body.data.id);
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it('answers 401 without a key', async () => {
    const answer = await call(embedded.url('/api/v1/themes'));
    expect(answer.status).toBe(401);
  });
});

describe('upstream provider (THEMES_PROVIDER_URL)', () => {
  afterEach(() => {
    upstream.status = 200;
  });

  it.each([500, 404])('answers 503 SERVICE_UNAVAILABLE when the provider answers %i', async (status) => {
    upstream.status = status;
    const answer = await themes(proxied, proxiedKey);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  });

  it('answers 400 for a bad platform without calling the provider', async () => {
    const before = upstream.requests;
    const answer = await themes(proxied, proxiedKey, '?platform=console');
    expect(answer.status).toBe(400);
    expect(upstream.requests).toBe(before);
  });
  // After the failure cases: from here on the runtime keeps the catalog it read.
  it('answers from the provider, which replaces the embedded catalog', async () => {
    const answer = await themes(proxied, proxiedKey, '?platform=game');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      id: 'upstream-game',
      content: '<design-system>\n# Upstream Game\n</design-system>',
      source: { provider: 'loopback-themes', url: upstream.url, theme_url: `${upstream.url}/upstream-game` },
    });
    expect((await themes(proxied, proxiedKey, '?id=neon-arcade')).status).toBe(404);
  });

  it('keeps a catalog read for a minute: a provider failing right after a good read is not asked again', async () => {
    const before = upstream.requests;
    upstream.status = 500;
    const answer = await themes(proxied, proxiedKey, '?id=upstream-web');
    expect(answer.status).toBe(200);
    expect(upstream.requests).toBe(before);
  });
});
