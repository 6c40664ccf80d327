import { configuration } from '../config/configuration.js';
import { continueSession, type ContinuationInput } from '../arena/session-continuation.js';

/** Without Lambda's context (the local stand-in): the function's own timeout. */
const FALLBACK_RUN_MS = 900_000;

/** Step Functions task (not an API route): continues an arena session no host plays. */
export const handler = (input: ContinuationInput, context?: { getRemainingTimeInMillis?: () => number }) =>
  continueSession(input, configuration(), Date.now() + (context?.getRemainingTimeInMillis?.() ?? FALLBACK_RUN_MS));
