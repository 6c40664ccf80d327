import { answerEmbeddings } from '../embeddings/embeddings-call.js';
import { embeddingsRequestValidator } from '../embeddings/embeddings-request.js';
import { defineHandler } from '../http/define-handler.js';

/** POST /api/v1/embeddings: OpenAI's embeddings request through the embedding models' routes. */
export const handler = defineHandler('embeddings', {
  body: embeddingsRequestValidator,
  handle: answerEmbeddings,
});
