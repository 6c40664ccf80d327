import { defineHandler } from '../http/define-handler.js';
import { noContent } from '../http/reply.js';
import { clearedSessionCookie } from '../identity/session-cookie.js';
import { deleteSession } from '../store/sessions.js';

export const handler = defineHandler('auth-logout', {
  handle: async ({ principal }) => {
    if (principal?.kind === 'session') await deleteSession(principal.sessionHash);
    return noContent({ 'Set-Cookie': clearedSessionCookie() });
  },
});
