import type { CatalogTheme } from '../theme-types.js';

export const coinflowMobile: CatalogTheme = {
  id: 'coinflow-mobile',
  name: 'Coinflow Mobile',
  platform: 'mobile-app',
  weight: 2,
  content: `
# Coinflow Mobile

A trustworthy system for mobile banking and payments: clear totals, deliberate actions.

## Voice
- Precise amounts with currency; confirm before money moves.
- Security messages explain the why: "We ask again because this is a new device".

## Colour tokens
| token | value | use |
|---|---|---|
| ground | #0F1B2D | header, dark surfaces |
| surface | #F5F7FB | screens |
| card | #FFFFFF | account cards |
| primary | #4361EE | primary actions |
| credit | #12A150 | money in |
| debit | #1F2937 | money out (not red: spending is normal) |
| alert | #E5484D | fraud and failures only |
| subtle | #6B7280 | secondary text |

## Type scale
Manrope, tabular figures on amounts.
- balance 36/40 bold
- title 20/26 bold
- body 16/24 regular
- caption 12/16 medium

## Spacing
8 pt grid: 4, 8, 12, 16, 24, 32. Card padding 20; list rows 64.

## Components
- **Balance header**: ground background, balance in balance size, hide-amount eye toggle.
- **Transaction row**: merchant logo 40 pt circle, name, category, amount right in credit/debit.
- **Slide to pay**: 56 pt track, thumb in primary, haptic tick at completion.
- **PIN pad**: 3 x 4 grid, 72 pt keys, biometric key bottom-left.
`,
};
