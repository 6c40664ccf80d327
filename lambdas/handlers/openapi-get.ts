import { defineHandler } from '../http/define-handler.js';
import { bare } from '../http/reply.js';
import { buildOpenApiDocument, documentServedAt } from '../openapi/document.js';

/** Built once per function instance: the manifest and the route docs are fixed for its life. */
const openApiDocument = buildOpenApiDocument();

/**
 * GET /api/v1/openapi.json: the OpenAPI 3.1 document of the whole interface, unauthenticated,
 * naming as its server the URL this request reached (a stage URL and a custom domain differ).
 */
export const handler = defineHandler('openapi-get', {
  handle: async (call) =>
    bare(documentServedAt(openApiDocument, call.req.baseUrl), 200, { 'Cache-Control': 'public, max-age=300' }),
});
