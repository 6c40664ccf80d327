import type { CatalogTheme } from '../theme-types.js';

export const tideNotes: CatalogTheme = {
  id: 'tide-notes',
  name: 'Tide Notes',
  platform: 'mobile-app',
  weight: 1,
  content: `
# Tide Notes

A quiet, content-first system for note-taking and journaling apps on phones and tablets.

## Voice
- Minimal: the interface steps back; labels are single words.
- Undo instead of confirmation dialogs.

## Colour tokens
| token | value | use |
|---|---|---|
| sand | #FAF9F6 | page |
| deep | #1D2B36 | text |
| tide | #2F7F8F | accent, cursor, links |
| foam | #E3F0F2 | selection, highlights |
| driftwood | #7C7368 | dates, metadata |
| coral | #D0624A | delete, warnings |

Dark mode: page #0F171D, text #E4ECEF, accent #5FB3C2.

## Type scale
Literata for notes, Inter for interface; user-adjustable 14 to 24.
- heading 24/32 semibold
- note 17/27 regular
- list 15/22 regular
- meta 12/16 medium, driftwood

## Spacing
4 pt base: 4, 8, 12, 20, 32. Editor margins 20 on phones, 64 on tablets.

## Components
- **Note list**: title, first line in driftwood, date right; swipe left to archive.
- **Editor toolbar**: above the keyboard, 44 pt, scrolls horizontally.
- **Tag chip**: foam fill, tide text, 12 pt radius.
- **Undo toast**: bottom, 4 s, one action.
`,
};
