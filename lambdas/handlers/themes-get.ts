import { defineHandler } from '../http/define-handler.js';
import { answerTheme, THEME_QUERY } from '../themes/themes-call.js';

/** GET /api/v1/themes: one design system, by id, biased by platform, or at random. */
export const handler = defineHandler('themes-get', { query: THEME_QUERY, handle: answerTheme });
