import { createHash, randomBytes } from 'node:crypto';

/**
 * The dashboard session cookie holds an opaque random id; the identity table stores only its
 * hash, so a leaked table cannot be replayed as cookies.
 */
export const SESSION_COOKIE = 'gw_session';
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export const newSessionId = (): string => randomBytes(32).toString('base64url');

export const hashSessionId = (id: string): string => createHash('sha256').update(id).digest('base64url');

export function sessionCookie(id: string): string {
  return `${SESSION_COOKIE}=${id}; Path=/; Max-Age=${SESSION_TTL_SECONDS}; HttpOnly; Secure; SameSite=Strict`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
}
