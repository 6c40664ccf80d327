import type { CatalogTheme } from '../theme-types.js';

export const pixelMeadow: CatalogTheme = {
  id: 'pixel-meadow',
  name: 'Pixel Meadow',
  platform: 'game',
  weight: 1,
  content: `
# Pixel Meadow

A cosy pixel-art interface for farming and life-simulation games.

## Voice
- Gentle and playful: "Your turnips look happy today."
- Never punishing: rainy days are "a good day to fish".

## Colour tokens
| token | value | use |
|---|---|---|
| sky | #A6E3F7 | day background |
| grass | #6ABE30 | primary, confirm |
| soil | #8F563B | frames |
| cream | #FFF3D6 | panels |
| bark | #4B2E1E | text |
| berry | #D95763 | cancel, hearts |
| sunflower | #FBF236 | highlights, coins |
| dusk | #3F3F74 | night tint |

Palette limited to 16 colours; every sprite and UI element uses it.

## Type scale
A 5 x 7 pixel font at integer scales only (x2, x3, x4).
- title x4 (28 px)
- heading x3 (21 px)
- body x2 (14 px), line height 18 px
- number x2, monospaced digits

## Spacing
Grid of 8 px at 1x; everything snaps to whole pixels at the current scale.

## Components
- **Hotbar**: 10 slots of 20 px, selected slot with sunflower frame and bounce.
- **Dialogue bubble**: cream with a 2 px bark outline, tail toward the speaker.
- **Calendar**: 4 x 7 grid, festival days with an icon, today in grass.
- **Heart meter**: 10 hearts, half-hearts allowed, berry fill.
`,
};
