import { nowSeconds } from '../store/dynamo.js';
import { putSession } from '../store/sessions.js';
import { hashSessionId, newSessionId, sessionCookie, SESSION_TTL_SECONDS } from './session-cookie.js';

/** A signed-in user's new dashboard session: stored under its hash, and the cookie that carries it. */
export async function openDashboardSession(accountId: string, email: string, now = new Date()) {
  const sessionId = newSessionId();
  const expiresAt = nowSeconds(now.getTime()) + SESSION_TTL_SECONDS;
  await putSession(hashSessionId(sessionId), { accountId, email, createdAt: now.toISOString(), expiresAt });
  return {
    body: { accountId, email, expiresAt: new Date(expiresAt * 1000).toISOString() },
    headers: { 'Set-Cookie': sessionCookie(sessionId), 'Cache-Control': 'no-store' },
  };
}
