import { modelList } from '../chat/model-objects.js';
import { defineHandler } from '../http/define-handler.js';
import { bare } from '../http/reply.js';

/** GET /api/v1/models: OpenAI's model list (docs/interface.md §2.4), the same for every caller. */
const list = modelList();

export const handler = defineHandler('models-list', { handle: async () => bare(list) });
