import type { CatalogTheme } from '../theme-types.js';

export const parchmentQuest: CatalogTheme = {
  id: 'parchment-quest',
  name: 'Parchment Quest',
  platform: 'game',
  weight: 2,
  content: `
# Parchment Quest

A fantasy RPG interface: inventories, dialogue and maps on aged paper and dark wood.

## Voice
- In-world but clear: "The gate is sealed. Find the bronze key."
- Item descriptions: one line of lore, then the stats.

## Colour tokens
| token | value | use |
|---|---|---|
| parchment | #EAD9B5 | panels |
| wood | #3E2A1C | frames, dark panels |
| ink | #2B1D12 | text on parchment |
| gilt | #C9A227 | selection, borders, currency |
| common | #9D9D9D | item rarity |
| rare | #3A7BD5 | item rarity |
| epic | #8E44AD | item rarity |
| legendary | #E67E22 | item rarity |
| health | #B0302A | health bar |
| mana | #2E5EAA | mana bar |

Rarity is shown by border colour and a label, never colour alone.

## Type scale
Cinzel for titles, Crimson Pro for text.
- title 36 px Cinzel bold
- heading 24 px Cinzel
- dialogue 20/30 Crimson Pro
- stat 16 px Crimson Pro semibold, tabular

## Spacing
6 px base: 6, 12, 18, 24, 36. Inventory slots 64 px with 6 px gutters.

## Components
- **Dialogue box**: bottom third, portrait left, text typed at 40 characters/s, skip on any key.
- **Inventory grid**: 8 x 5 slots, rarity border, tooltip with lore and stat deltas.
- **Quest log**: tabs for active/done, gilt marker on the tracked quest.
- **Resource bars**: health and mana with a trailing damage ghost that drains over 400 ms.
`,
};
