import type { CatalogTheme } from '../theme-types.js';

export const paperAtelier: CatalogTheme = {
  id: 'paper-atelier',
  name: 'Paper Atelier',
  platform: 'desktop-web',
  weight: 2,
  content: `
# Paper Atelier

An editorial system for long reading: documentation, blogs and knowledge bases.

## Voice
- Warm and conversational, second person ("You can...").
- Headlines are sentences, in sentence case.

## Colour tokens
| token | value | use |
|---|---|---|
| paper | #FBF8F3 | page |
| ink | #2A2522 | text |
| ink-soft | #6E645C | metadata, captions |
| rule | #E6DED3 | dividers |
| terracotta | #B4532A | links, primary action |
| moss | #4E6B3A | tips and success callouts |
| ochre | #C98E1C | warnings |

Links are underlined at 1 px offset 3 px; visited links darken 10 %.

## Type scale
Source Serif 4 for reading, IBM Plex Sans for interface.
- h1 40/48 serif semibold
- h2 28/36 serif semibold
- h3 20/28 sans semibold
- body 18/30 serif, measure 68 characters
- small 14/20 sans

## Spacing
8 px base: 8, 16, 24, 40, 64, 96. Paragraph gap 24; section gap 64.

## Components
- **Article column**: centred, 720 px max, table of contents in a left rail at 1200 px and up.
- **Callout**: 4 px left border in moss, ochre or terracotta, icon and bold first line.
- **Code block**: #F2ECE3 background, 14/22 mono, copy button on hover.
- **Footnote**: superscript number, note shown in a popover and repeated at the end.
`,
};
