import type { GatewayConfiguration } from '../config/configuration.js';
import { deprecationHeaders } from '../http/deprecation.js';

/**
 * POST /api/chat was deprecated from the start (docs/interface.md §9.3): this gateway first
 * served it, already deprecated, on 24 November 2026.
 */
export const LEGACY_CHAT_DEPRECATED_AT_MS = Date.UTC(2026, 10, 24);

/**
 * The legacy route's deprecation headers: the v1 route of each mode as its successor, the
 * OpenAPI document (which marks the route deprecated and says how to migrate) as the
 * description, and the sunset the deployment set, if any (LEGACY_CHAT_SUNSET).
 */
export const legacyChatHeaders = (config: GatewayConfiguration): Record<string, string> =>
  deprecationHeaders({
    deprecatedAtMs: LEGACY_CHAT_DEPRECATED_AT_MS,
    sunsetAtMs: config.legacyChatSunsetMs,
    successors: [
      { href: 'v1/chat/completions', title: 'mode chat' },
      { href: 'v1/battle', title: 'mode battle' },
      { href: 'v1/fight', title: 'mode fight' },
    ],
    documentation: 'v1/openapi.json',
  });
