import type { CatalogTheme } from '../theme-types.js';

export const transitPulse: CatalogTheme = {
  id: 'transit-pulse',
  name: 'Transit Pulse',
  platform: 'mobile-app',
  weight: 2,
  content: `
# Transit Pulse

A high-contrast system for travel and mobility apps read at a glance, outdoors, in motion.

## Voice
- Times first: "Next bus in 4 min". Delays in plain words with the new time.
- No exclamation marks; calm when things go wrong.

## Colour tokens
| token | value | use |
|---|---|---|
| base | #FFFFFF | screens |
| night | #101418 | text, dark mode base |
| route-blue | #0057B8 | primary, selected line |
| route-orange | #FF7A00 | live vehicles |
| delay | #D91E18 | delays, cancellations |
| ontime | #138A36 | on-time badges |
| mist | #EEF1F4 | grouped rows |
| mute | #5E6A75 | secondary text |

Line colours come from the operator's data and are paired with a line number, never alone.

## Type scale
Roboto Flex, tabular figures for every time.
- countdown 40/44 bold
- title 20/26 semibold
- body 16/22 regular
- meta 13/18 medium

## Spacing
4 dp base: 4, 8, 12, 16, 24. Rows 56 dp; primary buttons full width, 52 dp.

## Components
- **Departure row**: line badge, destination, countdown right-aligned, live dot when tracked.
- **Journey timeline**: vertical line in route colour, stops as 8 dp dots, transfers as gaps.
- **Alert banner**: delay red band, icon, one line, tap for details.
- **Map chip**: floating 40 dp pill, shadow level 2.
`,
};
