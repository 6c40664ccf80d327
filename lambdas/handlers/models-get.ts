import { retrieveModel } from '../chat/model-objects.js';
import { defineHandler } from '../http/define-handler.js';
import { bare } from '../http/reply.js';

/** GET /api/v1/models/{id}: one model object, as OpenAI SDKs' `models.retrieve(id)` reads it. */
export const handler = defineHandler('models-get', {
  handle: async ({ req }) => bare(retrieveModel(req.pathParams['id'] ?? '')),
});
