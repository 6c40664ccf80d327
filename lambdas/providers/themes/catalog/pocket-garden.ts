import type { CatalogTheme } from '../theme-types.js';

export const pocketGarden: CatalogTheme = {
  id: 'pocket-garden',
  name: 'Pocket Garden',
  platform: 'mobile-app',
  weight: 3,
  content: `
# Pocket Garden

A soft, friendly system for habit and wellness apps on phones.

## Voice
- Encouraging, never guilt: "Nice, 3 days in a row", not "You missed a day".
- Notifications under 60 characters.

## Colour tokens
| token | value | use |
|---|---|---|
| canvas | #F4F7F2 | screens |
| card | #FFFFFF | cards, sheets |
| leaf | #3C8D5A | primary actions, progress |
| leaf-tint | #DCEFE2 | selected states |
| sun | #F2B441 | streaks, highlights |
| soil | #3B322C | text |
| pebble | #8A847E | secondary text |
| berry | #C2456B | destructive actions |

Dark mode: canvas #121713, card #1C231D, soil #ECEFE9.

## Type scale
SF Pro (iOS) / Roboto (Android) with Dynamic Type and font scaling honoured.
- large title 34/41 bold
- title 22/28 semibold
- body 17/22 regular
- footnote 13/18 regular

## Spacing
8 pt grid: 4, 8, 16, 24, 32. Screen margin 16; touch targets at least 44 x 44 pt.

## Components
- **Habit card**: 20 pt radius, icon in leaf-tint circle, check button on the right.
- **Progress ring**: 8 pt stroke, leaf on leaf-tint, label centred.
- **Bottom sheet**: grabber, 28 pt top radius, dismiss by swipe.
- **Tab bar**: 4 items max, filled icon when selected, labels always visible.
`,
};
