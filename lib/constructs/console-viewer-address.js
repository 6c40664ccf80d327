// A CloudFront Function (cloudfront-js-2.0) on the distribution's `/api/*` viewer requests: the
// viewer's own address, as CloudFront saw the connection, in the header the sign-in functions
// and the web ACL count by (lambdas/identity/viewer-address.ts). Whatever the viewer sent in that
// header is replaced, so no one can claim another address; the origin's edge-secret header is
// what tells them the request came this way. Plain JS with no imports or exports, as CloudFront
// runs it; lib/constructs/console-distribution.ts deploys it.
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- CloudFront calls it by this name
function handler(event) {
  var request = event.request;
  request.headers['x-gateway-viewer-address'] = { value: event.viewer.ip };
  return request;
}
