import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { untraced } from '../observability/tracer.js';
import { nonPublicReason } from '../schema/public-address.js';
import { lookupHost, type HostLookup } from '../schema/public-url.js';
import { checkWebhookUrl, isLocalReceiver } from './webhook-url.js';

/**
 * One POST of a webhook event to the caller's URL, as the job-notify task sends it. The URL
 * passed the public-URL policy at submission, but a name can be pointed elsewhere since (DNS
 * rebinding): the policy is applied again here, and the name's addresses are checked by the
 * very lookup the connection uses, so no second answer can slip in between the check and the
 * connect. Redirects are not followed (a 3xx is an answer like any other non-2xx), and the
 * answer's body is not read beyond what closing it takes.
 */

/** One attempt may take this long, connecting included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

export interface DeliveryRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The local runtime's test receivers (lambdas/jobs/webhook-url.ts). */
  readonly receivers: readonly string[];
  readonly timeoutMs?: number;
  /** @default lookupHost (getaddrinfo) */
  readonly lookup?: HostLookup;
}

export type DeliveryAnswer =
  | { readonly kind: 'answered'; readonly status: number }
  /** No answer: refused connection, reset, timeout. Worth a retry. */
  | { readonly kind: 'unreachable'; readonly reason: string }
  /** The URL or an address its name resolves to is not public: never sent, not retried. */
  | { readonly kind: 'refused'; readonly reason: string };

/** What a webhook step needs to send a signed event: the account's signing secrets and one POST. */
export interface WebhookSender {
  /** The account's secrets that sign now (the current one, and the previous one within its window). */
  readonly signingSecrets: (accountId: string, now: Date) => Promise<readonly string[]>;
  readonly deliver: (delivery: {
    url: string;
    headers: Record<string, string>;
    body: string;
  }) => Promise<DeliveryAnswer>;
}

class NotPublicError extends Error {
  override readonly name = 'NotPublicError';
}

/** The connection's own lookup: `resolve`, refusing the name when any address it resolves to is not public. */
function publicOnlyLookup(resolve: HostLookup): LookupFunction {
  return (hostname, options, callback) => {
    const answer = callback as unknown as (
      error: Error | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    resolve(hostname).then(
      (addresses) => {
        for (const address of addresses) {
          const why = nonPublicReason(address);
          if (why) return answer(new NotPublicError(`${hostname} resolves to ${address}, which is ${why}`), '', 0);
        }
        const found = addresses.map((address) => ({ address, family: isIP(address) }));
        if ((options as LookupOptions).all) return answer(null, found);
        const first = found[0];
        if (!first) return answer(new Error(`${hostname} resolves to no address`), '', 0);
        answer(null, first.address, first.family);
      },
      (error: Error) => answer(error, '', 0),
    );
  };
}

export function deliverWebhook(delivery: DeliveryRequest): Promise<DeliveryAnswer> {
  const local = isLocalReceiver(delivery.url, delivery.receivers);
  if (!local) {
    const check = checkWebhookUrl(delivery.url, []);
    if (!check.ok) return Promise.resolve({ kind: 'refused', reason: check.message });
  }
  const url = new URL(delivery.url);
  const options: RequestOptions = {
    method: 'POST',
    headers: {
      ...delivery.headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(delivery.body)),
      'user-agent': 'ai-gateway-webhooks',
    },
    ...(local ? {} : { lookup: publicOnlyLookup(delivery.lookup ?? lookupHost) }),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = delivery.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  return new Promise((resolve) => {
    // Untraced: the caller's URL, query string and all, must not become a span attribute.
    const req = untraced(() =>
      send(url, options, (res) => {
        clearTimeout(timer);
        res.resume();
        resolve({ kind: 'answered', status: res.statusCode ?? 0 });
      }),
    );
    // One deadline for the whole attempt (a socket timeout would restart with every byte).
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      resolve(
        error instanceof NotPublicError
          ? { kind: 'refused', reason: error.message }
          : { kind: 'unreachable', reason: error.message },
      );
    });
    req.end(delivery.body);
  });
}
