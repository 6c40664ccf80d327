import { answerImageAnalysis } from '../chat/image-analysis-call.js';
import { imageAnalysisValidator } from '../chat/image-analysis-request.js';
import { defineHandler } from '../http/define-handler.js';

/** POST /api/v1/images/analyze: one image described or questioned by a vision model. */
export const handler = defineHandler('images-analyze', {
  body: imageAnalysisValidator,
  handle: answerImageAnalysis,
});
