import { EMBEDDED_CATALOG } from '../../../lambdas/themes/catalog/theme-catalog.js';
import { THEME_PLATFORMS } from '../../../lambdas/themes/theme-types.js';

/** The shipped catalog: at least 12 distinct, complete design systems over the three platforms. */
const themes = EMBEDDED_CATALOG.themes;

it('holds at least 12 themes with distinct slugs and names', () => {
  expect(themes.length).toBeGreaterThanOrEqual(12);
  expect(new Set(themes.map((t) => t.id)).size).toBe(themes.length);
  expect(new Set(themes.map((t) => t.name)).size).toBe(themes.length);
  for (const theme of themes) expect(theme.id).toMatch(/^[a-z0-9-]+$/);
});

it('spreads the themes over every platform', () => {
  for (const platform of THEME_PLATFORMS) {
    expect(themes.filter((t) => t.platform === platform).length).toBeGreaterThanOrEqual(3);
  }
});

it.each(themes.map((t) => [t.id, t] as const))('%s is a complete, compact design system', (_id, theme) => {
  expect(theme.weight).toBeGreaterThan(0);
  expect(theme.content).toMatch(new RegExp(`^# ${theme.name}$`, 'm'));
  for (const section of ['Voice', 'Colour tokens', 'Type scale', 'Spacing', 'Components']) {
    expect(theme.content).toMatch(new RegExp(`^## ${section}$`, 'm'));
  }
  expect(theme.content.match(/#[0-9A-F]{6}\b/g)?.length).toBeGreaterThanOrEqual(6);
  const lines = theme.content.trim().split('\n').length;
  expect(lines).toBeGreaterThanOrEqual(35);
  expect(lines).toBeLessThanOrEqual(70);
});

it('keeps each theme’s colour palette its own', () => {
  const palettes = themes.map((t) => [...new Set(t.content.match(/#[0-9A-F]{6}\b/g))].sort().join(','));
  expect(new Set(palettes).size).toBe(themes.length);
});
