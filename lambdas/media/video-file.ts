import type { ProviderEndpoint } from '../providers/provider-config.js';
import { callMinimax, type MinimaxDeps } from './minimax-call.js';
import { malformed } from './video-task.js';

/**
 * A finished video's download link from MiniMax's file API (docs/upstreams.md §6.4). MiniMax says
 * the link works for one hour and does not say until when: the expiry is counted from just
 * before the call, so it is never later than the real one.
 */
export const DOWNLOAD_URL_TTL_MS = 60 * 60 * 1000;

export interface VideoFileLink {
  readonly downloadUrl: string;
  /** Epoch milliseconds after which the link no longer works. */
  readonly expiresAt: number;
}

export async function retrieveVideoFile(
  endpoint: ProviderEndpoint,
  fileId: string,
  deps: MinimaxDeps & { readonly now?: () => number },
): Promise<VideoFileLink> {
  const askedAt = (deps.now ?? Date.now)();
  const { body } = await callMinimax(
    endpoint,
    { method: 'GET', path: '/files/retrieve', query: { file_id: fileId } },
    deps,
  );
  const file = body['file'] as { download_url?: unknown } | null | undefined;
  const downloadUrl = typeof file?.download_url === 'string' ? file.download_url : '';
  if (!/^https?:\/\//.test(downloadUrl)) throw malformed(`MiniMax's file ${fileId} came without a download_url`);
  return { downloadUrl, expiresAt: askedAt + DOWNLOAD_URL_TTL_MS };
}
