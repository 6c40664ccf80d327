/**
 * The headers every console file is answered with: locally by local/console-files.ts, and the
 * same set for the cloud's distribution to send. The console is one script and one style sheet
 * of its own origin (console/vite.config.mjs inlines nothing), so the policy forbids everything
 * else: no inline code, no other origin to load from or talk to, no framing.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * HSTS, sent by the cloud's distribution only: it answers on HTTPS alone, while the local
 * runtime serves plain HTTP (where browsers ignore the header anyway). A year, this host only:
 * the operator's other subdomains are not the gateway's to commit to HTTPS.
 */
export const CONSOLE_TRANSPORT_SECURITY = { maxAgeSeconds: 31_536_000, includeSubdomains: false } as const;

/** Vite names every built asset by its content's hash: such a file never changes under its name. */
export const CONSOLE_IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** index.html names the current assets, so it is checked again on every load. */
export const CONSOLE_REVALIDATE_CACHE = 'no-cache';
