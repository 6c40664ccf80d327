import { isIP } from 'node:net';
import { logger } from '../config/logger.js';
import { isCurrentSecret } from './current-secret.js';
import { EDGE_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from './edge-headers.js';

/**
 * The address of the person calling, for the per-address sign-in throttle. Through the
 * console's CloudFront distribution (lib/constructs/console-distribution.ts), API Gateway sees
 * an edge server's address as the source, shared by everyone that edge serves; the distribution
 * therefore sends the viewer's own address in `VIEWER_ADDRESS_HEADER`, set by its function on
 * every `/api/*` request (a viewer's own value of that header is overwritten), and proves the
 * request came through it with `EDGE_SECRET_HEADER`, an origin header whose value is the edge
 * secret. Only then is the claimed address believed: anyone can call the API directly, or
 * through a distribution of their own, with whatever headers they like.
 */

/** How often a wrong or unreadable edge secret may make an instance read it again (current-secret.ts). */
const EDGE_SECRET_REREAD_MS = 5_000;

export interface ViewerAddressRequest {
  readonly sourceIp: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/**
 * The viewer's address when the request proves it came through the distribution, else the
 * source address. `edgeSecretId` is unset where no distribution is deployed: the headers are
 * then ignored without reading anything. The secret is read only for requests that carry its
 * header, so direct callers cost nothing.
 */
export async function viewerAddress(req: ViewerAddressRequest, edgeSecretId: string | undefined): Promise<string> {
  const claimed = req.headers[EDGE_SECRET_HEADER];
  const viewer = req.headers[VIEWER_ADDRESS_HEADER]?.trim();
  if (edgeSecretId === undefined || claimed === undefined || viewer === undefined || isIP(viewer) === 0)
    return req.sourceIp;
  return (await edgeSecretMatches(claimed, edgeSecretId)) ? viewer : req.sourceIp;
}

/** Until when (epoch ms) an unreadable edge secret is not tried again on this instance. */
let unreadableUntil = 0;

/**
 * Whether the claimed value is the edge secret. A secret that cannot be read (Secrets Manager
 * throttled or down, the secret gone) makes the request count by its source address, as a stack
 * without the distribution would, rather than fail a sign-in; the failure is logged, and the
 * secret is not asked for again for a while, however many requests claim it.
 */
async function edgeSecretMatches(claimed: string, edgeSecretId: string, now = Date.now()): Promise<boolean> {
  if (now < unreadableUntil) return false;
  try {
    return await isCurrentSecret(claimed, edgeSecretId, EDGE_SECRET_REREAD_MS);
  } catch (error) {
    unreadableUntil = now + EDGE_SECRET_REREAD_MS;
    logger.error('edge secret unreadable: sign-ins count source addresses meanwhile', {
      edgeSecretId,
      error: (error as Error).name,
    });
    return false;
  }
}
