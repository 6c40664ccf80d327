/**
 * Why a video request was refused, in the adapter's terms: no status codes. The HTTP layer
 * turns it into a 400 BAD_REQUEST naming `field`; the message starts with the field too
 * (`duration: ...`), as every 400 of the gateway does.
 */
export class VideoRequestError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'VideoRequestError';
  }
}

export const invalidVideo = (field: string, rule: string): VideoRequestError =>
  new VideoRequestError(field, `${field}: ${rule}`);
