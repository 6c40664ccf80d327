import type { CatalogTheme } from '../theme-types.js';

export const ledgerSlate: CatalogTheme = {
  id: 'ledger-slate',
  name: 'Ledger Slate',
  platform: 'desktop-web',
  weight: 3,
  content: `
# Ledger Slate

A dense, calm system for finance and operations dashboards: numbers first, chrome last.

## Voice
- Plain and exact: "3 invoices overdue", never "Uh-oh!".
- Verbs on buttons ("Export CSV"), nouns in headings ("Overdue invoices").

## Colour tokens
| token | value | use |
|---|---|---|
| surface | #F7F8FA | page background |
| panel | #FFFFFF | cards, tables |
| ink | #1B2430 | body text |
| ink-muted | #5B6675 | labels, captions |
| line | #DDE2E8 | borders, table rules |
| accent | #2F5BEA | links, primary actions |
| gain | #1E8E5A | positive figures |
| loss | #C8372D | negative figures, destructive actions |

Contrast: ink on surface 14.8:1; accent on panel 5.9:1.

## Type scale
Inter for text, JetBrains Mono for figures (tabular numerals on).
- display 28/36 semibold
- title 20/28 semibold
- body 14/20 regular
- caption 12/16 medium, ink-muted
- figure 14/20 mono, right-aligned

## Spacing
4 px base: 4, 8, 12, 16, 24, 32, 48. Table rows 36 px; compact rows 28 px.

## Components
- **Data table**: sticky header, zebra off, row hover panel-2 (#F1F3F6), sort arrow beside label.
- **KPI card**: caption label, figure in display size, delta chip in gain/loss with an arrow.
- **Button**: 32 px high, 6 px radius; primary accent fill, secondary line outline, danger loss text.
- **Filter bar**: chips with a clear-all link at the end.
- **Empty state**: one sentence and one action, no illustration.
`,
};
