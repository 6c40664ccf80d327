// A CloudFront Function (cloudfront-js-2.0) on the console's viewer requests, before the cache:
// the console routes on the client, so a path whose last segment has no file extension is
// index.html, as local/console-files.ts answers it locally. A path with an extension is left
// alone, so a missing asset stays S3's own error rather than a page of HTML. Plain JS with no
// imports or exports, as CloudFront runs it; lib/constructs/console-distribution.ts deploys it.
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- CloudFront calls it by this name
function handler(event) {
  var request = event.request;
  var uri = request.uri;
  var last = uri.substring(uri.lastIndexOf('/') + 1);
  if (last.indexOf('.') === -1) request.uri = '/index.html';
  return request;
}
