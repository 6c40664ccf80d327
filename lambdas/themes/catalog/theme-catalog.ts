import type { ThemeCatalog } from '../theme-types.js';
import { civicCommons } from './civic-commons.js';
import { coinflowMobile } from './coinflow-mobile.js';
import { ledgerSlate } from './ledger-slate.js';
import { neonArcade } from './neon-arcade.js';
import { orbitCommand } from './orbit-command.js';
import { paperAtelier } from './paper-atelier.js';
import { parchmentQuest } from './parchment-quest.js';
import { pixelMeadow } from './pixel-meadow.js';
import { pocketGarden } from './pocket-garden.js';
import { signalConsole } from './signal-console.js';
import { tideNotes } from './tide-notes.js';
import { transitPulse } from './transit-pulse.js';

/**
 * The design systems shipped with the gateway, written for the project: what GET /api/v1/themes
 * answers when no upstream provider is configured. One file per theme; weights favour the
 * general-purpose systems of each platform.
 */
export const EMBEDDED_CATALOG: ThemeCatalog = {
  provider: 'embedded',
  // The catalog travels inside the gateway: its URLs are the gateway's own route.
  url: '/api/v1/themes',
  themeUrlTemplate: '/api/v1/themes?id={id}',
  themes: [
    ledgerSlate,
    paperAtelier,
    signalConsole,
    civicCommons,
    pocketGarden,
    transitPulse,
    coinflowMobile,
    tideNotes,
    neonArcade,
    parchmentQuest,
    orbitCommand,
    pixelMeadow,
  ],
};
