// The logger is not HTTP's: it lives in config/ so the chat core can log without importing
// lambdas/http. Kept here for the handlers and middlewares that import it from their layer.
export { logger, redact } from '../config/logger.js';
