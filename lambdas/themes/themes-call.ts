import { chooseTheme } from './theme-selection.js';
import { deploymentThemeDeps } from './theme-deployment.js';
import { ThemeError } from './theme-errors.js';
import type { GatewayCall } from '../http/call.js';
import { HttpError } from '../http/errors.js';
import { envelope, type Reply } from '../http/reply.js';

/** GET /api/v1/themes: the query's `id` and `platform` to the core, the theme in the envelope. */
export async function answerTheme(call: GatewayCall<undefined>): Promise<Reply> {
  const { id, platform } = call.req.query;
  try {
    return envelope(await chooseTheme({ id, platform }, deploymentThemeDeps(call.signal)));
  } catch (error) {
    throw error instanceof ThemeError ? themeHttpError(error) : error;
  }
}

/** The one translation of theme failures into HTTP (docs/interface.md §4.5 and §7). */
export function themeHttpError(error: ThemeError): HttpError {
  switch (error.kind) {
    case 'invalid_request':
      return new HttpError(400, 'BAD_REQUEST', error.message, error.field);
    case 'not_found':
      return new HttpError(404, 'NOT_FOUND', error.message, error.field);
    case 'upstream_failed':
      return new HttpError(503, 'SERVICE_UNAVAILABLE', error.message);
  }
}
