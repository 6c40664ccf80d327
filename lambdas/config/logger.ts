import { Logger } from '@aws-lambda-powertools/logger';
import { redact } from './redact.js';

export { redact } from './redact.js';

/**
 * The structured logger. Handlers log ids and outcomes, never headers or bodies, so keys,
 * tokens and cookies cannot reach the logs; every string value of every line also passes
 * through `redact`, the backstop for anything shaped like a credential. Per-call keys (request
 * id, route, account) are added by the observability middleware and cleared between calls.
 */
export const logger = new Logger({
  // The stack sets it from its name (lib/names.ts); locally the default stack's.
  serviceName: process.env['POWERTOOLS_SERVICE_NAME'] || 'ai-gateway',
  jsonReplacerFn: (_key: string, value: unknown) => (typeof value === 'string' ? redact(value) : value),
});
