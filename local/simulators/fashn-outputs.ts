import type { Prediction } from './fashn-predictions.js';

/**
 * The FASHN fake's outputs: one per `num_samples` / `num_images` (default 1), as URLs the fake
 * serves itself under `/cdn/<id>/output_<n>.<ext>` (standing in for cdn.fashn.ai), or as
 * `data:` URLs with `return_base64`. Images are a 1x1 PNG or JPEG; videos a file with MP4's
 * `ftyp` signature. Enough for a client to check the type and bytes, not to look at.
 */

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
const MP4 = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]),
  Buffer.from('ftypisom', 'latin1'),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from('isomiso2', 'latin1'),
]);

export interface OutputFile {
  readonly contentType: string;
  readonly bytes: Buffer;
}

const FILES: Readonly<Record<string, OutputFile>> = {
  png: { contentType: 'image/png', bytes: PNG },
  jpeg: { contentType: 'image/jpeg', bytes: JPEG },
  mp4: { contentType: 'video/mp4', bytes: MP4 },
};

export function outputFile(ext: string): OutputFile | undefined {
  return Object.hasOwn(FILES, ext) ? FILES[ext] : undefined;
}

function extensionOf(prediction: Prediction): string {
  if (prediction.model.video) return 'mp4';
  const format = prediction.inputs['output_format'];
  return format === 'jpeg' || format === 'png' ? format : (prediction.model.defaultFormat ?? 'png');
}

export function outputCount(prediction: Prediction): number {
  const count = prediction.model.countInput ? prediction.inputs[prediction.model.countInput] : undefined;
  return typeof count === 'number' && Number.isInteger(count) && count >= 1 ? Math.min(count, 4) : 1;
}

/** The completed prediction's `output`: CDN URLs on the fake's own host, or data URLs. */
export function outputsOf(prediction: Prediction, host: string): string[] {
  const ext = extensionOf(prediction);
  const file = FILES[ext]!;
  const base64 = prediction.inputs['return_base64'] === true && !prediction.model.video;
  return Array.from({ length: outputCount(prediction) }, (_, n) =>
    base64
      ? `data:${file.contentType};base64,${file.bytes.toString('base64')}`
      : `http://${host}/cdn/${prediction.id}/output_${n}.${ext}`,
  );
}

/** Credits the upstream reports: the base (or face-reference) cost per output; failures cost 0. */
export function creditsOf(prediction: Prediction): number {
  if (prediction.stage !== 'completed') return 0;
  const face = prediction.model.faceCredits !== undefined && prediction.inputs['face_reference'] !== undefined;
  return (face ? prediction.model.faceCredits! : prediction.model.credits) * outputCount(prediction);
}
