import { defineHandler } from '../http/define-handler.js';
import { answerSearch } from '../search/search-call.js';
import { searchRequestValidator } from '../search/search-request.js';

/** POST /api/v1/search: one web search through the platform's search provider. */
export const handler = defineHandler('search', {
  body: searchRequestValidator,
  handle: answerSearch,
});
