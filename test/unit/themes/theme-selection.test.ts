import { seededRandom } from '../../../lambdas/arena/seeded-random.js';
import { EMBEDDED_CATALOG } from '../../../lambdas/themes/catalog/theme-catalog.js';
import { ThemeError } from '../../../lambdas/themes/theme-errors.js';
import { chooseTheme, drawTheme, type ThemeDeps } from '../../../lambdas/themes/theme-selection.js';
import type { CatalogTheme, ThemeCatalog } from '../../../lambdas/themes/theme-types.js';

/** The theme core without HTTP: precedence, the weighted draw, and its domain errors. */
const theme = (id: string, platform: CatalogTheme['platform'], weight: number): CatalogTheme => ({
  id,
  name: id,
  platform,
  weight,
  content: `# ${id}`,
});

const SMALL: ThemeCatalog = {
  provider: 'test',
  url: 'https://themes.test',
  themeUrlTemplate: 'https://themes.test/{id}',
  themes: [theme('heavy-game', 'game', 3), theme('light-game', 'game', 1), theme('only-web', 'desktop-web', 5)],
};

const deps = (catalog: ThemeCatalog, seed = 'seed'): ThemeDeps => ({
  catalog,
  random: seededRandom(seed),
  signal: new AbortController().signal,
});

async function domainError(promise: Promise<unknown>): Promise<ThemeError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ThemeError);
  return error as ThemeError;
}

it('answers the theme named by id, whatever the platform says', async () => {
  const answer = await chooseTheme({ id: 'only-web', platform: 'game' }, deps(SMALL));
  expect(answer).toMatchObject({ id: 'only-web', platform: 'desktop-web', weight: 5 });
  expect(answer.content).toBe('<design-system>\n# only-web\n</design-system>');
  expect(answer.source).toEqual({
    provider: 'test',
    url: 'https://themes.test',
    theme_url: 'https://themes.test/only-web',
  });
  // With an id, platform is ignored, even a value that would otherwise be refused.
  await expect(chooseTheme({ id: 'only-web', platform: 'console' }, deps(SMALL))).resolves.toMatchObject({
    id: 'only-web',
  });
});

it('refuses an unknown id as not_found naming the id', async () => {
  const error = await domainError(chooseTheme({ id: 'no-such-theme' }, deps(SMALL)));
  expect(error).toMatchObject({ kind: 'not_found', field: 'id' });
  expect(error.message).toContain('no-such-theme');
});

it('refuses an id that is not a slug, naming id', async () => {
  const error = await domainError(chooseTheme({ id: 'Not A Slug' }, deps(SMALL)));
  expect(error).toMatchObject({ kind: 'invalid_request', field: 'id' });
});

it.each(['console', '', 'GAME', 'desktop_web'])('refuses platform %p naming platform', async (platform) => {
  const error = await domainError(chooseTheme({ platform }, deps(SMALL)));
  expect(error).toMatchObject({ kind: 'invalid_request', field: 'platform' });
  expect(error.message).toMatch(/desktop-web, mobile-app, game/);
});

it('draws only the platform’s themes, in proportion to their weights (seeded)', async () => {
  const d = deps(SMALL, 'bias');
  const counts = new Map<string, number>();
  const draws = 4000;
  for (let i = 0; i < draws; i++) {
    const answer = await chooseTheme({ platform: 'game' }, d);
    counts.set(answer.id, (counts.get(answer.id) ?? 0) + 1);
  }
  expect(counts.get('only-web')).toBeUndefined();
  // weight 3 of 4: three draws in four, within a band far wider than the sampling error (~0.7 %).
  expect((counts.get('heavy-game') ?? 0) / draws).toBeGreaterThan(0.72);
  expect((counts.get('heavy-game') ?? 0) / draws).toBeLessThan(0.78);
});

it('replays the same draws from the same seed', async () => {
  const run = async () => {
    const d = deps(EMBEDDED_CATALOG, 'replay');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await chooseTheme({}, d)).id);
    return ids;
  };
  expect(await run()).toEqual(await run());
});

it('walks the cumulative weights: the draw point decides the theme', () => {
  const games = SMALL.themes.slice(0, 2);
  expect(drawTheme(games, () => 0).id).toBe('heavy-game');
  expect(drawTheme(games, () => 0.74).id).toBe('heavy-game');
  expect(drawTheme(games, () => 0.76).id).toBe('light-game');
  expect(drawTheme(games, () => 1).id).toBe('light-game');
});

it('falls back to every theme when the catalog has none for the platform', async () => {
  const answer = await chooseTheme({ platform: 'mobile-app' }, deps(SMALL));
  expect(SMALL.themes.map((t) => t.id)).toContain(answer.id);
});

it('draws from the whole catalog, weighted, with neither id nor platform', async () => {
  const d = deps(EMBEDDED_CATALOG, 'all');
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) seen.add((await chooseTheme({}, d)).id);
  expect(seen.size).toBe(EMBEDDED_CATALOG.themes.length);
});
