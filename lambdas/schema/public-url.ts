import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import { ipv4Reason, nonPublicReason } from './public-address.js';
import { exceedsCharacters } from './text-length.js';

/**
 * The one policy for URLs a caller gives the gateway for someone else to fetch (fashion image
 * inputs and LoRA weights, video `first_frame_image`, chat image parts, the arena's
 * `image_url`): docs/interface.md §4.10's "a public URL". The fetching party (an upstream provider, or a
 * vision model) must not be pointed at the platform's own network or anyone's private one.
 *
 * Two steps. `checkPublicUrl` is synchronous and runs where the request is parsed: the text is
 * parsed as WHATWG URL parsing does (so `http://2130706433/`, `127.1`, `0x7f.1`, percent-encoded
 * and full-width hosts are judged as the address they are), then the host is judged:
 * addresses by public-address.ts, names by the rules below. `findPrivateResolution` is the
 * asynchronous step, run once per request before any upstream call: names are resolved and
 * refused when any address they resolve to is not public.
 *
 * What this cannot do: the fetching party resolves the name again itself, and may get another
 * answer (DNS rebinding, or a short TTL) — no check at the gateway can prevent that, which is why
 * the static rules refuse everything they can without DNS. A name that does not resolve here
 * (NXDOMAIN, no network, or no answer within HOST_LOOKUP_TIMEOUT_MS) is accepted: refusing it
 * would make a slow resolver a denial of service, and the fetching party cannot reach a name
 * that does not resolve either.
 */

/** The longest URL accepted, in characters (code points, as text-length.ts counts). */
export const MAX_PUBLIC_URL_CHARS = 2_048;
/** One deadline for all of a request's lookups, which run at once. */
export const HOST_LOOKUP_TIMEOUT_MS = 1_500;
/** Distinct names one request may ask the gateway to resolve (address hosts need no lookup). */
export const MAX_LOOKED_UP_HOSTS = 16;

/** The rule every refusal states, before its reason in parentheses. */
export const PUBLIC_URL_RULE = 'must be a public http(s) URL';

export type PublicUrlCheck =
  | {
      readonly ok: true;
      readonly url: URL;
      /** The host when it is a name, for findPrivateResolution; absent for an address. */
      readonly name?: string;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Top-level domains that never name a public host: special-use names (RFC 6761, 6762, 7686,
 * 8375, 9476) and the suffixes private networks use by convention (RFC 6762 appendix G, ICANN's
 * `.internal`). `arpa` covers `home.arpa` and the reverse-lookup trees, which name no web host.
 */
const LOCAL_ONLY_TLDS: ReadonlySet<string> = new Set([
  'localhost',
  'localdomain',
  'local',
  'internal',
  'intranet',
  'private',
  'corp',
  'home',
  'lan',
  'arpa',
  'test',
  'example',
  'invalid',
  'onion',
  'alt',
]);

/**
 * Backslashes and control characters: WHATWG parsing reads `\` as `/` and drops tabs and line
 * breaks, where the fetching party's parser may not, and would then see another host
 * (`https://public.example\@127.0.0.1/`).
 */
function isAmbiguous(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit <= 0x1f || unit === 0x7f || unit === 0x5c) return true;
  }
  return false;
}

export function checkPublicUrl(text: string): PublicUrlCheck {
  if (exceedsCharacters(text, MAX_PUBLIC_URL_CHARS))
    return refused(`it is longer than ${MAX_PUBLIC_URL_CHARS} characters`);
  if (isAmbiguous(text)) return refused('it holds a backslash or a control character');
  const url = URL.parse(text);
  if (!url) return refused('it is not a URL');
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return refused(`its scheme is ${url.protocol}, not http: or https:`);
  if (url.username !== '' || url.password !== '') return refused('it carries a user name or password');
  const host = url.hostname;
  // The parser writes an address host as `[v6]` or dotted decimal; any other host is a name.
  if (host.startsWith('[') || isIPv4(host)) {
    const why = nonPublicReason(host.replace(/^\[|\]$/g, ''));
    return why ? refused(`the host ${host} is ${why}`) : { ok: true, url };
  }
  const why = nameReason(host);
  return why ? refused(`the host ${host} ${why}`) : { ok: true, url, name: host };
}

const refused = (reason: string): PublicUrlCheck => ({ ok: false, reason });

/** Why a host name cannot be public; the URL parser has lowercased it and made it ASCII. */
function nameReason(host: string): string | undefined {
  const labels = (host.endsWith('.') ? host.slice(0, -1) : host).split('.');
  if (labels.some((label) => label === '')) return 'is not a valid host name';
  if (labels.length === 1) return 'is a single-label name, which only a local network resolves';
  const tld = labels.at(-1)!;
  if (LOCAL_ONLY_TLDS.has(tld)) return `is under .${tld}, which never names a public host`;
  const spelled = spelledAddress(labels);
  return spelled && `spells out ${spelled.address}, which is ${spelled.why}`;
}

/**
 * Wildcard-DNS names (`10.0.0.1.nip.io`, `www-10-0-0-1.sslip.io`) resolve to the address they
 * spell: four decimal octets as consecutive labels, or dash-separated inside one label. Such a
 * name is judged by that address without waiting for DNS. Hex spellings (`0a000001.nip.io`)
 * are left to resolution: eight hex digits are also an ordinary label.
 */
function spelledAddress(labels: readonly string[]): { address: string; why: string } | undefined {
  const runs = [labels, ...labels.map((label) => label.split('-'))];
  for (const parts of runs) {
    for (let i = 0; i + 4 <= parts.length; i++) {
      const octets = parts.slice(i, i + 4);
      if (!octets.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) continue;
      const address = octets.map(Number).join('.');
      const why = ipv4Reason(Uint8Array.from(octets.map(Number)));
      if (why) return { address, why };
    }
  }
  return undefined;
}

/** The addresses a name resolves to; rejects when it does not resolve. */
export type HostLookup = (name: string) => Promise<readonly string[]>;

/** The deployment's resolver: getaddrinfo (hosts file included), what an HTTP client here would use. */
export const lookupHost: HostLookup = async (name) => (await lookup(name, { all: true })).map((entry) => entry.address);

export interface LookupOptions {
  /** @default lookupHost */
  readonly lookup?: HostLookup;
  /** @default HOST_LOOKUP_TIMEOUT_MS */
  readonly timeoutMs?: number;
}

/** A URL of a request, by the field that holds it: what findPrivateResolution looks up. */
export interface NamedHost {
  readonly field: string;
  /** PublicUrlCheck's `name`. */
  readonly name: string;
}

export type ResolutionRefusal =
  | { readonly kind: 'too_many_hosts'; readonly max: number }
  | { readonly kind: 'not_public'; readonly field: string; readonly reason: string };

/**
 * Resolves every distinct name at once under one deadline, and refuses the first field (in
 * the order given) whose name resolves to any address that is not public. A lookup that fails
 * or is still pending at the deadline counts as unresolvable: accepted.
 */
export async function findPrivateResolution(
  hosts: readonly NamedHost[],
  options: LookupOptions = {},
): Promise<ResolutionRefusal | undefined> {
  const names = [...new Set(hosts.map((host) => host.name))];
  if (names.length === 0) return undefined;
  if (names.length > MAX_LOOKED_UP_HOSTS) return { kind: 'too_many_hosts', max: MAX_LOOKED_UP_HOSTS };
  const resolve = options.lookup ?? lookupHost;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((done) => {
    timer = setTimeout(done, options.timeoutMs ?? HOST_LOOKUP_TIMEOUT_MS, undefined);
  });
  try {
    const verdicts = await Promise.all(names.map((name) => Promise.race([resolvedReason(name, resolve), deadline])));
    const reasons = new Map(names.map((name, i) => [name, verdicts[i]]));
    const refusedHost = hosts.find((host) => reasons.get(host.name) !== undefined);
    return refusedHost && { kind: 'not_public', field: refusedHost.field, reason: reasons.get(refusedHost.name)! };
  } finally {
    clearTimeout(timer);
  }
}

async function resolvedReason(name: string, resolve: HostLookup): Promise<string | undefined> {
  let addresses: readonly string[];
  try {
    addresses = await resolve(name);
  } catch {
    return undefined;
  }
  for (const address of addresses) {
    const why = nonPublicReason(address);
    if (why) return `the host ${name} resolves to ${address}, which is ${why}`;
  }
  return undefined;
}

/** A refusal's message after the field: the rule, then why (`must be ... (the host ...)`). */
export const refusalText = (rule: string, reason: string) => `${rule} (${reason})`;
