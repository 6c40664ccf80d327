import type { CatalogTheme } from '../theme-types.js';

export const signalConsole: CatalogTheme = {
  id: 'signal-console',
  name: 'Signal Console',
  platform: 'desktop-web',
  weight: 2,
  content: `
# Signal Console

A dark system for developer tools and observability: logs, traces, terminals.

## Voice
- Terse and technical; timestamps in UTC with milliseconds.
- Errors say what failed and what to try next.

## Colour tokens
| token | value | use |
|---|---|---|
| void | #0E1116 | app background |
| pane | #161B22 | panels |
| pane-raised | #1F2630 | menus, popovers |
| text | #E6EDF3 | primary text |
| text-dim | #8B96A5 | secondary text |
| cyan | #39C5CF | focus ring, links |
| green | #3FB950 | ok, 2xx |
| amber | #D29922 | warn, 4xx |
| red | #F85149 | error, 5xx |

## Type scale
Inter for chrome, Berkeley Mono (fallback ui-monospace) for data.
- title 18/24 semibold
- body 13/20 regular
- mono 12/18, line numbers text-dim
- label 11/16 uppercase, letter-spacing 0.06em

## Spacing
4 px base: 2, 4, 8, 12, 16, 24. Panels split by 1 px #30363D, resizable.

## Components
- **Log line**: level badge, timestamp, message; click to expand the JSON payload.
- **Status pill**: dot plus label in green, amber or red; never colour alone.
- **Command palette**: Ctrl/Cmd-K, fuzzy match, recent commands first.
- **Tabs**: underline in cyan, close on middle click, overflow into a menu.
`,
};
