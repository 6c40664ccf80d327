import type { CatalogTheme } from '../theme-types.js';

export const orbitCommand: CatalogTheme = {
  id: 'orbit-command',
  name: 'Orbit Command',
  platform: 'game',
  weight: 2,
  content: `
# Orbit Command

A strategy and simulation interface for space 4X games: many numbers, clear hierarchy.

## Voice
- Operational: "Fleet 3 arrives in 4 turns", "Research complete: Ion Drives".
- Tooltips carry the formula behind every number.

## Colour tokens
| token | value | use |
|---|---|---|
| space | #05070D | backgrounds |
| hull | #121A26 | panels at 92 % opacity |
| edge | #2C3E57 | panel borders |
| readout | #CFE3FF | text |
| readout-dim | #7E93B0 | secondary text |
| ally | #3FA7FF | own units |
| neutral | #C8C8C8 | neutral units |
| hostile | #FF5A4F | enemies |
| energy | #FFD84A | resources |

Faction colours also differ in shape (circle, square, triangle) for colour-blind players.

## Type scale
Exo 2 for headings, IBM Plex Sans Condensed for data.
- header 28 px semibold
- panel title 18 px semibold, uppercase
- data 14 px regular, tabular
- micro 11 px medium

## Spacing
4 px base: 4, 8, 12, 16, 24. Panels dock to edges; the map keeps at least 60 % of the screen.

## Components
- **Resource ticker**: top bar, value plus per-turn delta in green or red with a sign.
- **Selection card**: unit portrait, stats table, action buttons with hotkeys shown.
- **Turn button**: bottom-right, energy fill, pulses when all orders are given.
- **Notification stack**: right edge, newest on top, click to centre the map.
`,
};
