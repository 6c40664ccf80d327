import { jest } from '@jest/globals';
import fc from 'fast-check';
import {
  checkPublicUrl,
  findPrivateResolution,
  HOST_LOOKUP_TIMEOUT_MS,
  MAX_LOOKED_UP_HOSTS,
  MAX_PUBLIC_URL_CHARS,
  type HostLookup,
} from '../../../lambdas/schema/public-url.js';

/**
 * The caller-URL policy (lambdas/schema/public-url.ts): every form a caller can write a
 * non-public host in is refused, read as the URL parser reads it; public URLs pass; and the
 * resolution step refuses a name that resolves to any non-public address, with an injected
 * resolver (no real DNS) and fake timers for the deadline.
 */

const REFUSED: readonly (readonly [string, string])[] = [
  // The forms the old check let through.
  ['https://localhost./', 'single-label'],
  ['https://[::127.0.0.1]/', 'IPv4-compatible address of 127.0.0.1, which is a loopback'],
  ['https://[64:ff9b::a9fe:a9fe]/', 'NAT64 address of 169.254.169.254, which is a cloud metadata'],
  ['https://[2002:7f00:1::]/', '6to4 address of 127.0.0.1, which is a loopback'],
  ['https://127.0.0.1.nip.io/', 'spells out 127.0.0.1'],
  // Numeric forms the URL parser turns into 127.0.0.1.
  ['http://2130706433/', 'loopback'],
  ['http://0x7f000001/', 'loopback'],
  ['http://0177.0.0.1/', 'loopback'],
  ['http://0177.0.0.01/', 'loopback'],
  ['http://127.1/', 'loopback'],
  ['http://127.0.1/', 'loopback'],
  ['http://0x7f.1/', 'loopback'],
  ['http://%31%32%37.0.0.1/', 'loopback'],
  ['http://１２７.０.０.１/', 'loopback'],
  ['http://127.0.0.1./', 'loopback'],
  ['https://127.0.0.1:8787/api/health', 'loopback'],
  // Every non-public IPv4 range.
  ['http://0.0.0.0/', 'unspecified'],
  ['http://0/', 'unspecified'],
  ['https://10.0.0.1/', 'private'],
  ['https://172.16.0.1/', 'private'],
  ['https://172.31.255.255/', 'private'],
  ['https://192.168.1.1/', 'private'],
  ['https://100.64.0.1/', 'carrier-grade NAT'],
  ['https://100.127.255.255/', 'carrier-grade NAT'],
  ['https://169.254.0.1/', 'link-local'],
  ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
  ['http://100.100.100.200/latest/meta-data/', 'cloud metadata'],
  ['http://192.0.0.192/opc/v2/instance/', 'cloud metadata'],
  ['https://192.0.0.8/', 'IETF protocol'],
  ['https://192.0.2.1/', 'documentation'],
  ['https://198.51.100.1/', 'documentation'],
  ['https://203.0.113.1/', 'documentation'],
  ['https://198.18.0.1/', 'benchmarking'],
  ['https://198.19.255.255/', 'benchmarking'],
  ['https://192.88.99.1/', '6to4 relay'],
  ['https://224.0.0.1/', 'multicast'],
  ['https://239.255.255.250/', 'multicast'],
  ['https://240.0.0.1/', 'reserved'],
  ['https://255.255.255.255/', 'broadcast'],
  // IPv6 ranges, and IPv4 inside IPv6.
  ['https://[::]/', 'unspecified'],
  ['https://[::1]/', 'loopback'],
  ['https://[0:0:0:0:0:0:0:1]/', 'loopback'],
  ['https://[fe80::1]/', 'link-local'],
  ['https://[febf::1]/', 'link-local'],
  ['https://[fec0::1]/', 'site-local'],
  ['https://[fc00::1]/', 'unique-local'],
  ['https://[fd00:ec2::254]/', 'cloud metadata'],
  ['https://[ff02::1]/', 'multicast'],
  ['https://[2001:db8::1]/', 'documentation'],
  ['https://[3fff::1]/', 'documentation'],
  ['https://[2001::1]/', 'Teredo'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'Teredo'],
  ['https://[2001:2::1]/', 'IETF protocol'],
  ['https://[100::1]/', 'discard-only'],
  ['https://[5f00::1]/', 'reserved'],
  ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped address of 127.0.0.1'],
  ['https://[::ffff:a9fe:a9fe]/', 'IPv4-mapped address of 169.254.169.254'],
  ['https://[::ffff:0:a00:1]/', 'IPv4-translated'],
  ['https://[::10.0.0.1]/', 'IPv4-compatible address of 10.0.0.1'],
  ['https://[64:ff9b::10.0.0.1]/', 'NAT64 address of 10.0.0.1'],
  ['https://[64:ff9b:1::a00:1]/', 'local-use NAT64'],
  ['https://[2002:a9fe:a9fe::1]/', '6to4 address of 169.254.169.254'],
  ['https://[2002:c0a8:101:1::1]/', '6to4 address of 192.168.1.1'],
  // Names that only a local network resolves, and names that spell a private address.
  ['https://localhost/', 'single-label'],
  ['https://LOCALHOST/', 'single-label'],
  ['https://intranet/a.jpg', 'single-label'],
  ['https://foo.localhost/', '.localhost'],
  ['https://foo.localhost./', '.localhost'],
  ['https://localhost.localdomain/', '.localdomain'],
  ['https://printer.local/', '.local'],
  ['https://files.corp.internal/a.jpg', '.internal'],
  ['https://nas.lan/', '.lan'],
  ['https://router.home.arpa/', '.arpa'],
  ['https://1.0.0.127.in-addr.arpa/', '.arpa'],
  ['https://img.test/a.png', '.test'],
  ['https://img.example/a.png', '.example'],
  ['https://a.invalid/', '.invalid'],
  ['https://abc.onion/', '.onion'],
  ['https://a..b/', 'not a valid host name'],
  ['https://localhost../', 'not a valid host name'],
  ['https://app.192.168.0.1.nip.io/', 'spells out 192.168.0.1'],
  ['https://10-0-0-1.sslip.io/', 'spells out 10.0.0.1'],
  ['https://www-169-254-169-254.sslip.io/', 'spells out 169.254.169.254'],
  ['https://127.0.0.1.xip.io/', 'spells out 127.0.0.1'],
  // Not an http(s) URL, or one another parser could read differently.
  ['ftp://example.com/a.png', 'scheme is ftp:'],
  ['file:///etc/passwd', 'scheme is file:'],
  ['gopher://example.com/', 'scheme is gopher:'],
  ['javascript:alert(1)', 'scheme is javascript:'],
  ['data:image/png;base64,AAAA', 'scheme is data:'],
  ['https://user:pass@example.com/', 'user name or password'],
  ['https://user@example.com/', 'user name or password'],
  ['https://:pass@example.com/', 'user name or password'],
  ['https://public.example.com\\@127.0.0.1/', 'backslash'],
  ['https://exa\tmple.com/', 'control character'],
  ['https://example.com/\na.png', 'control character'],
  ['not a url', 'not a URL'],
  ['https://', 'not a URL'],
  ['', 'not a URL'],
];

test.each(REFUSED)('%s is refused (%s)', (text, why) => {
  const check = checkPublicUrl(text);
  expect(check.ok).toBe(false);
  if (!check.ok) expect(check.reason).toContain(why);
});

const ACCEPTED: readonly (readonly [string, string | undefined])[] = [
  ['https://example.com/a.png', 'example.com'],
  ['http://example.com/a.png', 'example.com'],
  ['HTTPS://Images.Example.COM/a.png?size=2#top', 'images.example.com'],
  ['https://example.com./a.png', 'example.com.'],
  ['https://93.184.216.34/x', undefined],
  ['http://8.8.8.8:8080/x', undefined],
  ['https://[2606:2800:220:1::]/', undefined],
  ['https://[2606:2800:220:1:248:1893:25c8:1946]/a.png', undefined],
  // The embedded address decides: these reach public hosts.
  ['https://[::ffff:93.184.216.34]/', undefined],
  ['https://[64:ff9b::808:808]/', undefined],
  ['https://[2002:5db8:d822::1]/', undefined],
  ['https://8.8.8.8.nip.io/a.png', '8.8.8.8.nip.io'],
  ['https://ec2-3-4-5-6.compute-1.amazonaws.com/a.png', 'ec2-3-4-5-6.compute-1.amazonaws.com'],
  ['https://cdn.example.com/2024-10-01/10.0.0.1.png', 'cdn.example.com'],
  ['https://xn--nxasmq6b.com/', 'xn--nxasmq6b.com'],
];

test.each(ACCEPTED)('%s is accepted; a name is handed on for resolution', (text, name) => {
  const check = checkPublicUrl(text);
  expect(check).toMatchObject({ ok: true });
  if (check.ok) expect(check.name).toBe(name);
});

test(`at most ${MAX_PUBLIC_URL_CHARS} characters, counted as characters, not UTF-16 units`, () => {
  const url = (n: number, unit: string) => `https://example.com/${unit.repeat(n - 'https://example.com/'.length)}`;
  for (const unit of ['a', '😀']) {
    expect(checkPublicUrl(url(MAX_PUBLIC_URL_CHARS, unit)).ok).toBe(true);
    expect(checkPublicUrl(url(MAX_PUBLIC_URL_CHARS + 1, unit))).toEqual({
      ok: false,
      reason: `it is longer than ${MAX_PUBLIC_URL_CHARS} characters`,
    });
  }
});

/** Every non-public IPv4 range, as [first address, prefix length]. */
const PRIVATE_V4: readonly (readonly [number, number])[] = (
  [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const
).map(([address, bits]) => [address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0), bits] as const);

const privateV4 = fc
  .constantFrom(...PRIVATE_V4)
  .chain(([base, bits]) => fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => base + offset));

const octets = (n: number) => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const dotted = (n: number) => octets(n).join('.');
const hexWords = (n: number) => `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;

/** Every textual form a host can carry an IPv4 address in, by name. */
const FORMS: Readonly<Record<string, (n: number, suffix: number) => string>> = {
  dotted: (n) => dotted(n),
  decimal: (n) => String(n),
  hex: (n) => `0x${n.toString(16)}`,
  octal: (n) =>
    octets(n)
      .map((octet) => `0${octet.toString(8)}`)
      .join('.'),
  'mixed hex': (n) => {
    const [a, b, c, d] = octets(n);
    return `0x${a!.toString(16)}.${b}.0${c!.toString(8)}.${d}`;
  },
  'two parts': (n) => `${n >>> 24}.${n & 0xffffff}`,
  'three parts': (n) => `${n >>> 24}.${(n >>> 16) & 0xff}.${n & 0xffff}`,
  'trailing dot': (n) => `${dotted(n)}.`,
  mapped: (n) => `[::ffff:${dotted(n)}]`,
  'mapped hex': (n) => `[::ffff:${hexWords(n)}]`,
  compatible: (n) => `[::${dotted(n)}]`,
  NAT64: (n) => `[64:ff9b::${dotted(n)}]`,
  'NAT64 hex': (n) => `[64:ff9b::${hexWords(n)}]`,
  '6to4': (n, suffix) => `[2002:${hexWords(n)}::${suffix.toString(16)}]`,
  'nip.io': (n) => `${dotted(n)}.nip.io`,
  'sslip.io dashed': (n) => `app-${octets(n).join('-')}.sslip.io`,
};

test('property: a non-public IPv4 address is refused in every textual form', () => {
  fc.assert(
    fc.property(
      privateV4,
      fc.constantFrom(...Object.keys(FORMS)),
      fc.integer({ min: 0, max: 0xffff }),
      fc.constantFrom('http', 'https'),
      (address, form, suffix, scheme) => {
        const text = `${scheme}://${FORMS[form]!(address, suffix)}/a.png`;
        const check = checkPublicUrl(text);
        if (check.ok) throw new Error(`accepted ${text} (${form} of ${dotted(address)})`);
      },
    ),
    { numRuns: 2_000 },
  );
});

/** Non-public IPv6 ranges: [first words, prefix length in bits]. */
const PRIVATE_V6: readonly (readonly [readonly number[], number])[] = [
  [[0xfc00], 7],
  [[0xfe80], 10],
  [[0xfec0], 10],
  [[0xff00], 8],
  [[0x2001, 0x0db8], 32],
  [[0x2001, 0], 32],
  [[0x0064, 0xff9b, 1], 48],
  [[0x0100, 0, 0, 0], 64],
];

test('property: an address in a non-public IPv6 range is refused, however it is written', () => {
  const address = fc
    .tuple(
      fc.constantFrom(...PRIVATE_V6),
      fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
    )
    .map(([[prefix, bits], random]) =>
      random.map((word, i) => {
        const fixed = Math.max(0, Math.min(16, bits - i * 16));
        const mask = fixed === 0 ? 0 : (0xffff << (16 - fixed)) & 0xffff;
        return ((prefix[i] ?? 0) & mask) | (word & ~mask & 0xffff);
      }),
    );
  fc.assert(
    fc.property(address, fc.boolean(), (words, padded) => {
      const text = words.map((word) => (padded ? word.toString(16).padStart(4, '0') : word.toString(16))).join(':');
      expect(checkPublicUrl(`https://[${text}]/`).ok).toBe(false);
    }),
    { numRuns: 1_000 },
  );
});

test('property: addresses in 1.0.0.0 to 9.255.255.255, all public, are accepted in every form', () => {
  const publicV4 = fc.integer({ min: 0x01000000, max: 0x09ffffff });
  const forms = Object.keys(FORMS).filter((form) => form !== 'nip.io' && form !== 'sslip.io dashed');
  fc.assert(
    fc.property(publicV4, fc.constantFrom(...forms), fc.integer({ min: 0, max: 0xffff }), (address, form, suffix) => {
      expect(checkPublicUrl(`https://${FORMS[form]!(address, suffix)}/a.png`).ok).toBe(true);
    }),
  );
});

describe('resolution', () => {
  afterEach(() => jest.useRealTimers());

  const resolver = (table: Record<string, readonly string[]>) => {
    const asked: string[] = [];
    const lookup: HostLookup = async (name) => {
      asked.push(name);
      const addresses = table[name];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return addresses;
    };
    return { lookup, asked };
  };

  test('a name that resolves to a private address is refused, naming its field', async () => {
    const { lookup } = resolver({ 'evil.example.com': ['10.0.0.1'] });
    expect(await findPrivateResolution([{ field: 'image_url', name: 'evil.example.com' }], { lookup })).toEqual({
      kind: 'not_public',
      field: 'image_url',
      reason: 'the host evil.example.com resolves to 10.0.0.1, which is a private address',
    });
  });

  test('any one non-public address among several is enough; IPv6 answers are judged too', async () => {
    const { lookup } = resolver({
      'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
      'v6.example.com': ['2606:2800:220:1::', '::ffff:169.254.169.254'],
      'zone.example.com': ['fe80::1%eth0'],
    });
    for (const name of ['mixed.example.com', 'v6.example.com', 'zone.example.com'])
      expect(await findPrivateResolution([{ field: 'f', name }], { lookup })).toMatchObject({ kind: 'not_public' });
  });

  test('a name that resolves to public addresses only is accepted', async () => {
    const { lookup } = resolver({ 'example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    expect(await findPrivateResolution([{ field: 'f', name: 'example.com' }], { lookup })).toBeUndefined();
  });

  test('a name that does not resolve (ENOTFOUND) is accepted', async () => {
    const { lookup, asked } = resolver({});
    expect(await findPrivateResolution([{ field: 'f', name: 'nowhere.example.com' }], { lookup })).toBeUndefined();
    expect(asked).toEqual(['nowhere.example.com']);
  });

  test('the first field in request order is named; each distinct name is looked up once', async () => {
    const { lookup, asked } = resolver({ 'a.example.com': ['8.8.8.8'], 'b.example.com': ['192.168.0.9'] });
    const refusal = await findPrivateResolution(
      [
        { field: 'first', name: 'a.example.com' },
        { field: 'second', name: 'b.example.com' },
        { field: 'third', name: 'b.example.com' },
        { field: 'fourth', name: 'a.example.com' },
      ],
      { lookup },
    );
    expect(refusal).toMatchObject({ kind: 'not_public', field: 'second' });
    expect(asked.sort()).toEqual(['a.example.com', 'b.example.com']);
  });

  test(`more than ${MAX_LOOKED_UP_HOSTS} distinct names are refused before any lookup`, async () => {
    const { lookup, asked } = resolver({});
    const names = (n: number) => Array.from({ length: n }, (_, i) => ({ field: `f${i}`, name: `h${i}.example.com` }));
    expect(await findPrivateResolution(names(MAX_LOOKED_UP_HOSTS), { lookup })).toBeUndefined();
    expect(asked).toHaveLength(MAX_LOOKED_UP_HOSTS);
    asked.length = 0;
    expect(await findPrivateResolution(names(MAX_LOOKED_UP_HOSTS + 1), { lookup })).toEqual({
      kind: 'too_many_hosts',
      max: MAX_LOOKED_UP_HOSTS,
    });
    expect(asked).toHaveLength(0);
  });

  test('no names, no lookup', async () => {
    const { lookup, asked } = resolver({});
    expect(await findPrivateResolution([], { lookup })).toBeUndefined();
    expect(asked).toHaveLength(0);
  });

  test('resolvers that never answer are given up on together at the one deadline, and accepted', async () => {
    jest.useFakeTimers();
    const never: HostLookup = () => new Promise<never>(() => {});
    const hosts = Array.from({ length: MAX_LOOKED_UP_HOSTS }, (_, i) => ({
      field: `f${i}`,
      name: `h${i}.example.com`,
    }));
    let settled = false;
    const verdict = findPrivateResolution(hosts, { lookup: never }).then((result) => {
      settled = true;
      return result;
    });
    await jest.advanceTimersByTimeAsync(HOST_LOOKUP_TIMEOUT_MS - 1);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    expect(await verdict).toBeUndefined();
    expect(jest.getTimerCount()).toBe(0);
  });

  test('an answer before the deadline counts even when another lookup never answers', async () => {
    jest.useFakeTimers();
    const lookup: HostLookup = (name) =>
      name === 'slow.example.com' ? new Promise<never>(() => {}) : Promise.resolve(['169.254.169.254']);
    const verdict = findPrivateResolution(
      [
        { field: 'slow', name: 'slow.example.com' },
        { field: 'metadata', name: 'meta.example.com' },
      ],
      { lookup },
    );
    await jest.advanceTimersByTimeAsync(HOST_LOOKUP_TIMEOUT_MS);
    expect(await verdict).toMatchObject({ kind: 'not_public', field: 'metadata' });
  });
});
