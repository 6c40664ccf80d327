import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { CloudFormationCustomResourceEvent, CloudFormationCustomResourceResponse } from 'aws-lambda';

/**
 * A Lambda-backed custom resource answers CloudFormation by PUTting its result to the
 * presigned S3 URL of the event. Without that PUT the stack waits for the resource's timeout
 * (an hour by default) before it fails, so the answer is sent whatever happened before it.
 */

export type CustomResourceResult =
  | { readonly status: 'SUCCESS'; readonly physicalResourceId: string; readonly data?: Record<string, string> }
  | { readonly status: 'FAILED'; readonly physicalResourceId: string; readonly reason: string };

/** CloudFormation refuses a response over 4,096 bytes, so the reason (free text) is cut well below it. */
export const MAX_REASON_CHARS = 1_000;

/** One PUT to S3: it answers in well under a second, so this only ends a connection that hangs. */
export const RESPONSE_PUT_TIMEOUT_MS = 10_000;

export function responseBody(
  event: CloudFormationCustomResourceEvent,
  result: CustomResourceResult,
): CloudFormationCustomResourceResponse {
  const common = {
    PhysicalResourceId: result.physicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  };
  return result.status === 'SUCCESS'
    ? { ...common, Status: 'SUCCESS', ...(result.data ? { Data: result.data } : {}) }
    : { ...common, Status: 'FAILED', Reason: result.reason.slice(0, MAX_REASON_CHARS) };
}

/**
 * PUTs the body to the event's response URL. The presigned URL signs no content type, so none
 * is sent (as CloudFormation's own cfn-response does). Rejects on a non-2xx answer or a timeout.
 */
export function putResponse(responseUrl: string, body: CloudFormationCustomResourceResponse): Promise<void> {
  const url = new URL(responseUrl);
  const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
  if (!send) return Promise.reject(new Error(`response URL scheme ${url.protocol} is neither https nor http`));
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'PUT',
        headers: { 'content-type': '', 'content-length': payload.length },
        timeout: RESPONSE_PUT_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`CloudFormation's response URL answered ${status}`));
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from the response URL in ${RESPONSE_PUT_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
