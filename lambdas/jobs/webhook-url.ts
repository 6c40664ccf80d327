import {
  checkPublicUrl,
  findPrivateResolution,
  MAX_PUBLIC_URL_CHARS,
  refusalText,
  type LookupOptions,
} from '../schema/public-url.js';

/**
 * A job's `webhook_url` (docs/interface.md §6.4): where the gateway itself POSTs the job's end,
 * so the public-URL policy (lambdas/schema/public-url.ts) applies twice, as for every URL a
 * caller hands over: at submission (the text, then its name's resolution) and again at each
 * delivery (webhook-delivery.ts resolves the name as it connects). Unlike the inputs upstreams
 * fetch, it must be https: the event carries the job's result (download links), and the
 * signature proves who sent it, not who read it.
 *
 * `receivers` are the local runtime's exception: `host:port` origins (a test's receiver on
 * loopback) accepted over http or https without the policy. The stack never sets them
 * (configuration `localWebhookReceivers`).
 */

export const WEBHOOK_URL_RULE = 'must be a public https URL';

export const webhookUrlSchema = {
  type: 'string',
  maxLength: MAX_PUBLIC_URL_CHARS,
  description:
    'A public https URL the gateway POSTs one signed event to when the job ends (docs/interface.md §6.4, Standard Webhooks).',
  'x-message': { maxLength: `${WEBHOOK_URL_RULE} of at most ${MAX_PUBLIC_URL_CHARS} characters` },
} as const;

export type WebhookUrlCheck =
  | { readonly ok: true; readonly url: string; readonly name?: string }
  | { readonly ok: false; readonly message: string };

/** A local receiver's origin, when `text` names one of `receivers` over http(s). */
export function isLocalReceiver(text: string, receivers: readonly string[]): boolean {
  if (receivers.length === 0) return false;
  const url = URL.parse(text);
  return (
    url !== null &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    receivers.includes(url.host)
  );
}

/** The synchronous step: the text as a URL, https, and a host that can be public. */
export function checkWebhookUrl(value: unknown, receivers: readonly string[]): WebhookUrlCheck {
  if (typeof value !== 'string') return { ok: false, message: WEBHOOK_URL_RULE };
  if (isLocalReceiver(value, receivers)) return { ok: true, url: value };
  const check = checkPublicUrl(value);
  if (!check.ok) return { ok: false, message: refusalText(WEBHOOK_URL_RULE, check.reason) };
  if (check.url.protocol !== 'https:')
    return { ok: false, message: refusalText(WEBHOOK_URL_RULE, `its scheme is ${check.url.protocol}, not https:`) };
  return { ok: true, url: value, ...(check.name === undefined ? {} : { name: check.name }) };
}

/**
 * The asynchronous step for a URL the synchronous one accepted: its name resolved, and the
 * refusal's message when it resolves to an address that is not public.
 */
export async function webhookHostRefusal(
  url: string | undefined,
  receivers: readonly string[],
  options: LookupOptions = {},
): Promise<string | undefined> {
  const check = url === undefined ? undefined : checkWebhookUrl(url, receivers);
  if (!check?.ok || check.name === undefined) return undefined;
  const refusal = await findPrivateResolution([{ field: 'webhook_url', name: check.name }], options);
  return refusal?.kind === 'not_public' ? refusalText(WEBHOOK_URL_RULE, refusal.reason) : undefined;
}

/** Both steps for a URL given alone (the account's budget webhook): the refusal's text, or undefined. */
export async function webhookUrlRefusal(
  url: string,
  receivers: readonly string[],
  options: LookupOptions = {},
): Promise<string | undefined> {
  const check = checkWebhookUrl(url, receivers);
  return check.ok ? webhookHostRefusal(url, receivers, options) : check.message;
}
