import { isIPv4, isIPv6 } from 'node:net';

/**
 * Whether an IP address is one anyone on the internet reaches as the same host: the half of
 * the caller-URL policy (public-url.ts) that judges addresses, both those a URL names and those
 * a name resolves to. The tables follow IANA's special-purpose registries: a range there that
 * is not globally reachable is refused here. An IPv6 address that carries an IPv4 one
 * (IPv4-mapped, IPv4-compatible, NAT64, 6to4) reaches that IPv4 host, so it is judged by it.
 */

/** Why an address is not public, as a refusal says it (`a loopback address`); undefined when public. */
export function nonPublicReason(address: string): string | undefined {
  const v4 = parseIPv4(address);
  if (v4) return ipv4Reason(v4);
  const v6 = parseIPv6(address);
  if (v6) return ipv6Reason(v6);
  return 'not an IP address';
}

/** Dotted decimal only: the URL parser has already turned `127.1` and `0x7f000001` into it. */
export function parseIPv4(text: string): Uint8Array | undefined {
  if (!isIPv4(text)) return undefined;
  return Uint8Array.from(text.split('.').map(Number));
}

/** Sixteen bytes, from any RFC 4291 text form (`::`, a dotted tail); a zone (`%eth0`) is dropped. */
export function parseIPv6(text: string): Uint8Array | undefined {
  const address = text.replace(/^\[|\]$/g, '').split('%')[0]!;
  if (!isIPv6(address)) return undefined;
  const [headText, tailText] = address.split('::') as [string, string | undefined];
  const head = words(headText);
  const tail = tailText === undefined ? [] : words(tailText);
  const all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  return Uint8Array.from(all.flatMap((word) => [word >> 8, word & 0xff]));
}

/** The 16-bit words of one side of `::`. */
function words(side: string): number[] {
  if (side === '') return [];
  return side.split(':').flatMap((group) => {
    if (!group.includes('.')) return [parseInt(group, 16)];
    const [a, b, c, d] = parseIPv4(group)!;
    return [(a! << 8) | b!, (c! << 8) | d!];
  });
}

interface Range {
  readonly bytes: Uint8Array;
  readonly bits: number;
  readonly why: string;
}

function range(cidr: string, why: string): Range {
  const [address, bits] = cidr.split('/') as [string, string];
  const bytes = parseIPv4(address) ?? parseIPv6(address);
  if (!bytes) throw new Error(`not a CIDR: ${cidr}`);
  return { bytes, bits: Number(bits), why };
}

function inRange(bytes: Uint8Array, { bytes: prefix, bits }: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (prefix[bit / 8]! & mask)) return false;
  }
  return true;
}

const firstMatch = (bytes: Uint8Array, ranges: readonly Range[]) => ranges.find((r) => inRange(bytes, r))?.why;

/** First match wins: single metadata addresses come before the ranges that hold them. */
const IPV4_RANGES: readonly Range[] = [
  range('169.254.169.254/32', 'a cloud metadata address'),
  range('100.100.100.200/32', 'a cloud metadata address'),
  range('192.0.0.192/32', 'a cloud metadata address'),
  range('255.255.255.255/32', 'the broadcast address'),
  range('0.0.0.0/8', 'an unspecified address (0.0.0.0/8)'),
  range('10.0.0.0/8', 'a private address'),
  range('100.64.0.0/10', 'a shared (carrier-grade NAT) address'),
  range('127.0.0.0/8', 'a loopback address'),
  range('169.254.0.0/16', 'a link-local address'),
  range('172.16.0.0/12', 'a private address'),
  range('192.0.0.0/24', 'an IETF protocol address'),
  range('192.0.2.0/24', 'a documentation address'),
  range('192.88.99.0/24', 'a 6to4 relay address'),
  range('192.168.0.0/16', 'a private address'),
  range('198.18.0.0/15', 'a benchmarking address'),
  range('198.51.100.0/24', 'a documentation address'),
  range('203.0.113.0/24', 'a documentation address'),
  range('224.0.0.0/4', 'a multicast address'),
  range('240.0.0.0/4', 'a reserved address'),
];

export function ipv4Reason(bytes: Uint8Array): string | undefined {
  return firstMatch(bytes, IPV4_RANGES);
}

/** Where an IPv4 address sits inside an IPv6 one (byte offset), by the embedding's prefix. */
const EMBEDDINGS: readonly { readonly range: Range; readonly at: number }[] = [
  { range: range('::ffff:0:0/96', 'an IPv4-mapped'), at: 12 },
  { range: range('64:ff9b::/96', 'a NAT64'), at: 12 },
  { range: range('2002::/16', 'a 6to4'), at: 2 },
];

const IPV6_RANGES: readonly Range[] = [
  range('::/128', 'the unspecified address'),
  range('::1/128', 'a loopback address'),
  range('fd00:ec2::254/128', 'a cloud metadata address'),
  range('::ffff:0:0:0/96', 'an IPv4-translated address'),
  range('64:ff9b:1::/48', 'a local-use NAT64 address'),
  range('100::/64', 'a discard-only address'),
  range('2001::/32', 'a Teredo address'),
  range('2001:db8::/32', 'a documentation address'),
  range('2001::/23', 'an IETF protocol address'),
  range('3fff::/20', 'a documentation address'),
  range('fc00::/7', 'a unique-local address'),
  range('fe80::/10', 'a link-local address'),
  range('fec0::/10', 'a site-local address'),
  range('ff00::/8', 'a multicast address'),
];

/** 2000::/3 is all the global unicast space IANA has allocated; the rest is reserved. */
const GLOBAL_UNICAST = range('2000::/3', '');
const IPV4_COMPATIBLE = range('::/96', 'an IPv4-compatible');

export function ipv6Reason(bytes: Uint8Array): string | undefined {
  const listed = firstMatch(bytes, IPV6_RANGES);
  if (listed) return listed;
  const embedding =
    EMBEDDINGS.find(({ range: r }) => inRange(bytes, r)) ??
    (inRange(bytes, IPV4_COMPATIBLE) ? { range: IPV4_COMPATIBLE, at: 12 } : undefined);
  if (embedding) {
    const v4 = bytes.subarray(embedding.at, embedding.at + 4);
    const why = ipv4Reason(v4);
    return why && `${embedding.range.why} address of ${v4.join('.')}, which is ${why}`;
  }
  return inRange(bytes, GLOBAL_UNICAST) ? undefined : 'a reserved address';
}
