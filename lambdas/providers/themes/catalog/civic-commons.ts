import type { CatalogTheme } from '../theme-types.js';

export const civicCommons: CatalogTheme = {
  id: 'civic-commons',
  name: 'Civic Commons',
  platform: 'desktop-web',
  weight: 1,
  content: `
# Civic Commons

An accessible public-service system: forms and guidance that anyone can finish.

## Voice
- Reading age 9: short sentences, common words, no jargon.
- One question per page; tell people what they need before they start.

## Colour tokens
| token | value | use |
|---|---|---|
| background | #FFFFFF | page |
| text | #0B0C0C | body |
| secondary | #505A5F | hints |
| link | #1D70B8 | links |
| focus | #FFDD00 | focus background, with text underline |
| success | #00703C | primary buttons, confirmations |
| error | #D4351C | error messages and borders |
| border | #B1B4B6 | inputs |

All pairs meet WCAG 2.2 AA; focus is visible on every control.

## Type scale
Arial / Helvetica stack (no web font to download).
- xl 48/50 bold
- l 36/40 bold
- m 24/30 bold
- body 19/25 regular
- small 16/20 regular

## Spacing
5 px base: 5, 10, 15, 20, 30, 40, 50. Form groups 30 apart.

## Components
- **Text input**: 40 px high, 2 px border, label above, hint below the label.
- **Error summary**: at the top, red border, links to each field in error.
- **Start button**: success green, arrow icon, 3 px shadow bottom.
- **Step by step nav**: numbered steps with "and" / "or" connectors.
`,
};
