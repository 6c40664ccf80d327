import { chooseTheme } from './theme-selection.js';
import { deploymentThemeDeps } from './theme-deployment.js';
import type { GatewayCall } from '../http/call.js';
import { envelope, type Reply } from '../http/reply.js';

/** The query parameters the themes route reads. */
export const THEME_QUERY = ['id', 'platform'] as const;

/** GET /api/v1/themes: the query's `id` and `platform` to the core, the theme in the envelope. */
export async function answerTheme(call: GatewayCall<undefined>): Promise<Reply> {
  const { id, platform } = call.req.query;
  return envelope(await chooseTheme({ id, platform }, deploymentThemeDeps(call.config, call.signal)));
}
