import { isIP } from 'node:net';
import { invalidFashion } from './fashion-errors.js';

/**
 * The image-input rules of spec 4.10. The upstream fetches URLs itself, so a URL must be one
 * it can reach publicly: https only, no loopback, private, link-local or internal-only hosts
 * (which would also let a caller point the upstream at the platform's own network). A data URI
 * needs its `data:image/<type>;base64,` prefix; a bare base64 string is passed on unchanged, so
 * the upstream fails the prediction with `ImageLoadError` as the spec says it does (a failed
 * prediction costs no credits).
 */

export type ImageInputKind = 'url' | 'data_uri' | 'bare_base64';

export const MAX_IMAGE_URL_CHARS = 2_048;
/**
 * A data URI's length: 4 MiB of text (about 3 MiB of image). Lambda accepts at most 6 MB of
 * request body, which the local server enforces too; this bounds each image below that.
 */
export const MAX_DATA_URI_CHARS = 4 * 1024 * 1024;

const DATA_URI = /^data:image\/(png|jpeg|jpg|webp|gif|avif|heic);base64,([A-Za-z0-9+/]+={0,2})$/;
const BARE_BASE64 = /^[A-Za-z0-9+/]{64,}={0,2}$/;
const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home.arpa'];

const PUBLIC_URL_RULE = 'must be a public https URL or a data:image/<type>;base64, URI';

export function imageInputKind(field: string, value: string): ImageInputKind {
  if (value.startsWith('data:')) return dataUri(field, value);
  if (BARE_BASE64.test(value)) {
    if (value.length > MAX_DATA_URI_CHARS) throw invalidFashion(field, tooLong(MAX_DATA_URI_CHARS));
    return 'bare_base64';
  }
  publicHttpsUrl(field, value, PUBLIC_URL_RULE);
  return 'url';
}

function dataUri(field: string, value: string): ImageInputKind {
  if (value.length > MAX_DATA_URI_CHARS) throw invalidFashion(field, tooLong(MAX_DATA_URI_CHARS));
  if (!DATA_URI.test(value)) {
    throw invalidFashion(field, 'must be a data URI of the form data:image/<png|jpeg|webp|...>;base64,<base64>');
  }
  return 'data_uri';
}

/** Throws naming `field` unless `value` is an https URL of a publicly resolvable-looking host. */
export function publicHttpsUrl(field: string, value: string, rule: string): URL {
  if (value.length > MAX_IMAGE_URL_CHARS) throw invalidFashion(field, tooLong(MAX_IMAGE_URL_CHARS));
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || url.protocol !== 'https:' || url.username || url.password) throw invalidFashion(field, rule);
  if (!isPublicHost(url.hostname)) throw invalidFashion(field, `${rule} (the host must be reachable publicly)`);
  return url;
}

function isPublicHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host) === 4) return isPublicIPv4(host);
  if (isIP(host) === 6) return isPublicIPv6(host);
  if (!host.includes('.') || host === 'localhost') return false;
  return !INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

function isPublicIPv4(address: string): boolean {
  const [a = 0, b = 0] = address.split('.').map(Number);
  return !(
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168)
  );
}

function isPublicIPv6(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  if (mapped) return isPublicIPv4(mapped);
  if (address === '::' || address === '::1' || address.startsWith('::ffff:')) return false;
  // Unique local (fc00::/7), link-local (fe80::/10) and multicast (ff00::/8).
  return !/^(f[cd]|fe[89ab]|ff)/.test(address);
}

const tooLong = (max: number) => `must be at most ${max} characters`;
