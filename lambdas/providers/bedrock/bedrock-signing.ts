import { SigV4Signer, type Credentials } from '../../store/signed-request.js';

/**
 * Signature Version 4 for Bedrock Runtime (service `bedrock`), with the house signer the
 * DynamoDB and STS clients use (lambdas/store/signed-request.ts): no SDK on the hot path, the
 * signing key derived once a day per region. Credentials are the function role's, which the
 * configuration read once from the environment Lambda set (as every AWS call here does), so
 * signing costs no disk or metadata-service read per request.
 */

export interface AwsSigning {
  readonly region: string;
  readonly credentials: Credentials;
}

const signers = new Map<string, SigV4Signer>();

/** Signs a POST in place: adds `x-amz-date`, the session token when there is one, `authorization`. */
export function signBedrockPost(url: URL, headers: Record<string, string>, body: string, signing: AwsSigning): void {
  let signer = signers.get(signing.region);
  if (!signer) signers.set(signing.region, (signer = new SigV4Signer(signing.region, 'bedrock')));
  signer.sign('POST', canonicalPath(url.pathname), headers, body, signing.credentials);
}

/**
 * The canonical URI of a non-S3 service: each segment of the path as sent, URI-encoded once
 * more (RFC 3986 unreserved characters kept). A model id's `:` is sent as `%3A` and so signed
 * as `%253A`, as AWS computes it.
 */
export function canonicalPath(path: string): string {
  return path
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
}

/** The path of a Converse call: the model id (or inference profile id, or ARN) as one encoded segment. */
export function conversePath(modelId: string, stream: boolean): string {
  return `/model/${encodeURIComponent(modelId)}/${stream ? 'converse-stream' : 'converse'}`;
}
