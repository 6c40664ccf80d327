/**
 * The headers the console's CloudFront distribution adds to every `/api/*` request it forwards
 * (lib/constructs/console-distribution.ts), and which the web ACL and the sign-in functions
 * read (lambdas/identity/viewer-address.ts). Data only, so the stack imports no runtime code.
 */
/** The viewer's own address, set by the distribution's function (a viewer's value is replaced). */
export const VIEWER_ADDRESS_HEADER = 'x-gateway-viewer-address';
/** The edge secret, an origin header: proof that the request came through the distribution. */
export const EDGE_SECRET_HEADER = 'x-gateway-edge-secret';
