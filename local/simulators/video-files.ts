import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SimExchange, SimResponse } from './harness.js';
import { changeListeners, type SimulatorState } from './persisted-state.js';
import { minimalMp4 } from './video-mp4.js';
import { numericId, remember } from './video-store.js';
import type { SimVideoTask } from './video-tasks.js';

/**
 * The MiniMax fake's file store (docs/upstreams.md §6.4): a finished task's video gets a file id;
 * `GET /v1/files/retrieve` hands out a signed download link that expires (one hour by
 * default, `[sim:url_ttl_ms=N]` in the task's prompt), served by the fake itself under
 * `/cdn/video/...` as a CDN would: no API key, the signature and expiry in the query, and a
 * 403 with an XML error once expired or tampered with.
 */

export interface SimVideoFile {
  readonly fileId: string;
  readonly owner: string;
  readonly taskId: string;
  readonly durationSeconds: number;
  readonly urlTtlMs: number;
  readonly createdAt: number;
}

export const VIDEO_FILENAME = 'output_aigc.mp4';
export const DOWNLOAD_PATH = /^\/cdn\/video\/(?<fileId>\d+)\/output_aigc\.mp4$/;

const files = new Map<string, SimVideoFile>();
const fileOfTask = new Map<string, string>();
let signingKey = randomBytes(32);
const changes = changeListeners();

/**
 * The files and the key that signs their links, for a restart over the same data folder
 * (persisted-state.ts): a link handed out before the restart still verifies until it expires.
 */
export const videoFileState: SimulatorState = {
  snapshot: () => ({ signingKey: signingKey.toString('hex'), files: [...files.values()] }),
  restore(snapshot) {
    const saved = (snapshot ?? { signingKey: randomBytes(32).toString('hex'), files: [] }) as {
      signingKey?: unknown;
      files?: unknown;
    };
    const key = typeof saved.signingKey === 'string' ? Buffer.from(saved.signingKey, 'hex') : Buffer.alloc(0);
    if (key.length !== 32 || !Array.isArray(saved.files) || !saved.files.every(isFile))
      throw new Error('not a video file store');
    signingKey = key;
    files.clear();
    fileOfTask.clear();
    for (const file of saved.files) keep(file);
  },
  onChange: changes.onChange,
};

/** The file a succeeded task produced, made on its first `Success` answer. */
export function fileForTask(task: SimVideoTask): SimVideoFile {
  const known = files.get(fileOfTask.get(task.taskId) ?? '');
  if (known) return known;
  const file: SimVideoFile = {
    fileId: numericId(),
    owner: task.owner,
    taskId: task.taskId,
    durationSeconds: task.accepted.duration,
    urlTtlMs: task.urlTtlMs,
    createdAt: Date.now(),
  };
  keep(file);
  changes.notify();
  return file;
}

function keep(file: SimVideoFile): void {
  remember(files, file.fileId, file);
  remember(fileOfTask, file.taskId, file.fileId);
}

/** The file as `owner` may see it. `file_id` arrives as a string or an int64 number. */
export function fileOf(owner: string, fileId: string): SimVideoFile | undefined {
  const file = files.get(fileId);
  return file?.owner === owner ? file : undefined;
}

/** A download link valid for the file's TTL from now, on the host the caller reached. */
export function downloadUrlOf(file: SimVideoFile, host: string, now = Date.now()): string {
  const expires = String(now + file.urlTtlMs);
  return `http://${host}/cdn/video/${file.fileId}/${VIDEO_FILENAME}?expires=${expires}&signature=${signatureOf(file.fileId, expires)}`;
}

export const isDownloadPath = (url: URL): boolean => DOWNLOAD_PATH.test(url.pathname);

/** The CDN's answer: the MP4 while the link is valid, else 403 (expired, bad signature) or 404. */
export function downloadAnswer(x: SimExchange): SimResponse {
  const file = files.get(x.params['fileId'] ?? '');
  if (!file) return cdnError(404, 'NoSuchKey', 'The specified key does not exist.');
  const expires = x.url.searchParams.get('expires') ?? '';
  if (!validSignature(file.fileId, expires, x.url.searchParams.get('signature') ?? ''))
    return cdnError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match.');
  if (!(Number(expires) > Date.now())) return cdnError(403, 'AccessDenied', 'Request has expired');
  const bytes = videoOf(file);
  return {
    status: 200,
    headers: { 'Content-Type': 'video/mp4', 'Content-Length': String(bytes.length) },
    body: bytes.toString('ascii'),
  };
}

/** The file's content: a minimal MP4 of the clip's duration. */
export const videoOf = (file: SimVideoFile): Buffer =>
  minimalMp4({ durationSeconds: file.durationSeconds, label: `MiniMax fake video ${file.fileId}` });

const signatureOf = (fileId: string, expires: string) =>
  createHmac('sha256', signingKey).update(`${fileId}:${expires}`).digest('hex');

function validSignature(fileId: string, expires: string, signature: string): boolean {
  const expected = Buffer.from(signatureOf(fileId, expires));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function isFile(value: unknown): value is SimVideoFile {
  const file = value as Partial<SimVideoFile> | null;
  return (
    typeof file?.fileId === 'string' &&
    typeof file.owner === 'string' &&
    typeof file.taskId === 'string' &&
    typeof file.durationSeconds === 'number' &&
    typeof file.urlTtlMs === 'number' &&
    typeof file.createdAt === 'number'
  );
}

function cdnError(status: number, code: string, message: string): SimResponse {
  return {
    status,
    headers: { 'Content-Type': 'application/xml' },
    body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  };
}
