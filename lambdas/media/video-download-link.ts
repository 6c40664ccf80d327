import type { VideoFileLink } from './video-file.js';

/**
 * The download-link policy of a finished video job: the video stays in MiniMax's file store
 * (no copy in the stack's storage), and a status read hands out the link kept in the job
 * record while it has at least REFRESH_MARGIN_MS left, else a fresh one from MiniMax's file
 * API, which the caller keeps in the record for the next reads. A link read from a status
 * answer therefore works for at least that margin.
 */
export const REFRESH_MARGIN_MS = 10 * 60 * 1000;

/** What a finished job's record keeps of its video. */
export interface VideoJobFile {
  readonly fileId: string;
  readonly downloadUrl?: string;
  /** Epoch milliseconds. */
  readonly downloadUrlExpiresAt?: number;
}

export interface DownloadLink extends VideoFileLink {
  /** True when fetched afresh: the caller stores it in the job record. */
  readonly refreshed: boolean;
}

export async function downloadLinkFor(
  job: VideoJobFile,
  now: number,
  deps: { readonly retrieve: (fileId: string) => Promise<VideoFileLink> },
): Promise<DownloadLink> {
  const { downloadUrl, downloadUrlExpiresAt } = job;
  if (
    downloadUrl !== undefined &&
    downloadUrlExpiresAt !== undefined &&
    downloadUrlExpiresAt - now >= REFRESH_MARGIN_MS
  )
    return { downloadUrl, expiresAt: downloadUrlExpiresAt, refreshed: false };
  return { ...(await deps.retrieve(job.fileId)), refreshed: true };
}
