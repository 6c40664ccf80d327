import type { CatalogTheme } from '../theme-types.js';

export const neonArcade: CatalogTheme = {
  id: 'neon-arcade',
  name: 'Neon Arcade',
  platform: 'game',
  weight: 3,
  content: `
# Neon Arcade

A glowing retro-synth HUD and menu system for fast arcade and rhythm games.

## Voice
- Loud and short: "COMBO x12", "READY?", "NEW HIGH SCORE".
- Menu labels are verbs in capitals: PLAY, RETRY, QUIT.

## Colour tokens
| token | value | use |
|---|---|---|
| night | #0B0221 | backgrounds |
| grid | #2B0F54 | floor grid, panels |
| magenta | #FF2A6D | primary, player 1 |
| cyan | #05D9E8 | secondary, player 2 |
| lime | #D1F7FF | text on glow |
| gold | #FFC600 | score, rewards |
| danger | #FF3B3B | damage, low health |

Glow: 0 0 12 px of the colour at 70 %; limit to two glowing elements per screen.

## Type scale
Orbitron for display, Rajdhani for UI, both uppercase in menus.
- score 64 px bold, gold, tabular
- title 40 px bold
- menu 28 px semibold, letter-spacing 0.1em
- hud 18 px medium

## Spacing
8 px base: 8, 16, 24, 48. HUD keeps 5 % safe area on every edge.

## Components
- **Menu list**: focused item scales to 110 % with magenta glow; controller and keyboard focus.
- **Combo meter**: segmented bar, fills cyan to magenta, shakes 2 px at max.
- **Score popup**: rises 24 px and fades over 600 ms.
- **Pause overlay**: night at 80 %, blur 8 px, RESUME focused first.
`,
};
