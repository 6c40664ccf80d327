import { invalidMedia, type MediaError } from './media-errors.js';

/**
 * A refused video request, named by its field: the message starts with the field too
 * (`duration: ...`), as every 400 of the gateway does.
 */
export const invalidVideo = (field: string, rule: string): MediaError => invalidMedia(field, `${field}: ${rule}`);
