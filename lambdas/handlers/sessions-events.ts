import { answerSessionEvents, SESSION_EVENTS_QUERY } from '../arena/sessions-call.js';
import { defineHandler } from '../http/define-handler.js';

/** GET /api/v1/sessions/{id}/events: the session's events after `Last-Event-ID`, then live ones while it runs. */
export const handler = defineHandler('sessions-events', { query: SESSION_EVENTS_QUERY, handle: answerSessionEvents });
