import { defineHandler } from '../http/define-handler.js';
import { answerVideoStatus, VIDEO_STATUS_QUERY } from '../media/video-call.js';

/** GET /api/v1/media/video/status?task_id=: the caller's video job, with a working download link. */
export const handler = defineHandler('media-video-status', { query: VIDEO_STATUS_QUERY, handle: answerVideoStatus });
