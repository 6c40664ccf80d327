import type { APIGatewayProxyResult } from 'aws-lambda';
import { ARENA_ERROR_ANSWERS, ArenaError, type ArenaErrorKind } from '../../../lambdas/arena/arena-errors.js';
import { CHAT_ERROR_ANSWERS, ChatError, type ChatErrorKind } from '../../../lambdas/chat/chat-errors.js';
import type { DomainError } from '../../../lambdas/errors/domain-error.js';
import { FASHION_ERROR_ANSWERS, FashionError, type FashionErrorKind } from '../../../lambdas/fashion/fashion-errors.js';
import { logger } from '../../../lambdas/config/logger.js';
import { defineHandler, routeById } from '../../../lambdas/http/define-handler.js';
import {
  IDENTITY_ERROR_ANSWERS,
  IdentityError,
  type IdentityErrorKind,
} from '../../../lambdas/identity/identity-errors.js';
import { SIGN_IN_ERROR_ANSWERS, SignInError, type SignInErrorKind } from '../../../lambdas/identity/sign-in.js';
import { JobNotFoundError } from '../../../lambdas/jobs/job-lookup.js';
import {
  MEDIA_ERROR_ANSWERS,
  MediaError,
  VIDEO_TASK_NOT_FOUND,
  type MediaErrorKind,
} from '../../../lambdas/media/media-errors.js';
import { SEARCH_ERROR_ANSWERS, SearchError, type SearchErrorKind } from '../../../lambdas/search/search-errors.js';
import { EMAIL_TAKEN_ANSWERS, EmailTakenError } from '../../../lambdas/store/accounts.js';
import {
  IDEMPOTENCY_ERROR_ANSWERS,
  IdempotencyError,
  type IdempotencyErrorKind,
} from '../../../lambdas/store/idempotency.js';
import { THEME_ERROR_ANSWERS, ThemeError, type ThemeErrorKind } from '../../../lambdas/themes/theme-errors.js';
import { USAGE_ERROR_ANSWERS, UsageError, type UsageErrorKind } from '../../../lambdas/usage/usage-errors.js';
import { lambdaContext, publicGetEvent } from '../../support/lambda-invocation.js';

/**
 * Every kind of every domain, thrown by a handler and answered by the real middleware chain:
 * status, code, the body in both error styles, and Retry-After. The expected answers are written
 * out here from docs/interface.md §7 (not read from the domains' tables), and each domain's list
 * must name exactly the kinds its table has, so a new kind cannot go untested.
 */

interface Expected {
  readonly status: number;
  readonly code: string;
  /** The message the caller reads; the error's own unless the domain replaces it. */
  readonly message?: string;
  readonly field?: string;
  readonly retryAfter?: string;
}

/** The message every test error is thrown with; a 503 that says it leaks upstream detail. */
const WHY = 'why (an upstream internal detail)';

interface Domain {
  readonly name: string;
  readonly answers: Readonly<Record<string, unknown>>;
  readonly make: (kind: string) => DomainError;
  readonly expected: Readonly<Record<string, Expected>>;
}

const domain = <K extends string>(
  name: string,
  answers: Readonly<Record<K, unknown>>,
  make: (kind: K) => DomainError,
  expected: Readonly<Record<K, Expected>>,
): Domain => ({ name, answers, make: (kind) => make(kind as K), expected });

const DOMAINS: readonly Domain[] = [
  domain<ChatErrorKind>('chat', CHAT_ERROR_ANSWERS, (kind) => new ChatError(kind, WHY), {
    invalid_request: { status: 400, code: 'BAD_REQUEST' },
    model_not_found: { status: 404, code: 'model_not_found', field: 'id' },
    content_filtered: { status: 400, code: 'CONTENT_FILTERED' },
    content_blocked: { status: 400, code: 'CONTENT_BLOCKED' },
    schema_validation_failed: { status: 400, code: 'SCHEMA_VALIDATION_FAILED' },
    upstream_rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED' },
    model_unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE' },
    dependency_unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE' },
    upstream_stream_failed: { status: 502, code: 'UPSTREAM_STREAM_FAILED' },
  }),
  domain<ArenaErrorKind>('arena', ARENA_ERROR_ANSWERS, (kind) => new ArenaError(kind, WHY), {
    invalid_request: { status: 400, code: 'BAD_REQUEST' },
    streaming_required: { status: 400, code: 'STREAMING_REQUIRED' },
    no_answer: { status: 503, code: 'SERVICE_UNAVAILABLE' },
    all_rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED' },
    session_not_found: { status: 404, code: 'NOT_FOUND', message: 'session not found' },
  }),
  domain<SearchErrorKind>('search', SEARCH_ERROR_ANSWERS, (kind) => new SearchError(kind, WHY), {
    invalid_request: { status: 400, code: 'BAD_REQUEST' },
    not_configured: { status: 500, code: 'INTERNAL_ERROR' },
    rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED', message: `${WHY}; retry after 1 s`, retryAfter: '1' },
    upstream_failed: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  }),
  domain<ThemeErrorKind>('themes', THEME_ERROR_ANSWERS, (kind) => new ThemeError(kind, WHY), {
    invalid_request: { status: 400, code: 'BAD_REQUEST' },
    not_found: { status: 404, code: 'NOT_FOUND' },
    upstream_failed: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  }),
  domain<MediaErrorKind>('media', MEDIA_ERROR_ANSWERS, (kind) => new MediaError(kind, WHY), {
    invalid_request: { status: 400, code: 'BAD_REQUEST' },
    refused: { status: 400, code: 'BAD_REQUEST' },
    rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED', message: `${WHY}; retry after 1 s`, retryAfter: '1' },
    not_configured: { status: 503, code: 'SERVICE_UNAVAILABLE' },
    upstream_failed: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  }),
  domain<FashionErrorKind>('fashion', FASHION_ERROR_ANSWERS, (kind) => new FashionError(kind, WHY), {
    invalid_request: { status: 400, code: 'BAD_REQUEST' },
    upstream_rejected: {
      status: 400,
      code: 'BAD_REQUEST',
      message: `inputs: refused by the fashion service: ${WHY}`,
      field: 'inputs',
    },
    not_found: { status: 404, code: 'NOT_FOUND', message: 'Fashion prediction not found', field: 'id' },
    rate_limited: {
      status: 429,
      code: 'RATE_LIMIT_EXCEEDED',
      message: 'The fashion service is rate limited; retry after 5 s',
      retryAfter: '5',
    },
    concurrency_limited: {
      status: 429,
      code: 'RATE_LIMIT_EXCEEDED',
      message: 'Too many fashion predictions are running; retry once some finish; retry after 10 s',
      retryAfter: '10',
    },
    not_configured: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service is not configured' },
    out_of_credits: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service is out of credits' },
    upstream_auth: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service credentials were refused' },
    upstream_failed: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service failed; retry later' },
    too_many_watchers: {
      status: 429,
      code: 'RATE_LIMIT_EXCEEDED',
      message: 'At most 10 streams may watch one prediction at once (poll its status instead); retry after 10 s',
      retryAfter: '10',
    },
  }),
  domain<IdempotencyErrorKind>('idempotency', IDEMPOTENCY_ERROR_ANSWERS, (kind) => new IdempotencyError(kind, WHY), {
    invalid_key: { status: 400, code: 'BAD_REQUEST', field: 'Idempotency-Key' },
    in_flight: { status: 409, code: 'CONFLICT', field: 'Idempotency-Key', retryAfter: '1' },
    mismatch: { status: 422, code: 'IDEMPOTENCY_KEY_REUSED', field: 'Idempotency-Key' },
  }),
  domain<IdentityErrorKind>('identity', IDENTITY_ERROR_ANSWERS, (kind) => new IdentityError(kind, WHY), {
    missing_credentials: { status: 401, code: 'UNAUTHORIZED' },
    invalid_credentials: { status: 401, code: 'INVALID_API_KEY' },
    not_allowed: { status: 403, code: 'FORBIDDEN' },
    invalid_request: { status: 400, code: 'BAD_REQUEST' },
  }),
  domain<SignInErrorKind>(
    'sign-in',
    SIGN_IN_ERROR_ANSWERS,
    (kind) => new SignInError(kind, WHY, { retryAfterMs: 2_500 }),
    {
      wrong_credentials: { status: 401, code: 'UNAUTHORIZED' },
      reset_required: { status: 401, code: 'PASSWORD_RESET_REQUIRED' },
      password_change_required: { status: 403, code: 'PASSWORD_CHANGE_REQUIRED' },
      password_rejected: { status: 400, code: 'BAD_REQUEST' },
      mfa_required: { status: 401, code: 'MFA_REQUIRED', field: 'totpCode' },
      totp_rejected: { status: 401, code: 'INVALID_TOTP_CODE', field: 'totpCode' },
      mfa_setup_required: { status: 403, code: 'MFA_SETUP_REQUIRED' },
      mfa_setup_not_begun: { status: 409, code: 'CONFLICT' },
      mfa_not_enabled: { status: 409, code: 'CONFLICT' },
      mfa_mandatory: { status: 409, code: 'CONFLICT' },
      throttled: {
        status: 429,
        code: 'RATE_LIMIT_EXCEEDED',
        message: 'Rate limit exceeded; retry after 3 s',
        retryAfter: '3',
      },
    },
  ),
  domain<'email_taken'>('accounts', EMAIL_TAKEN_ANSWERS, () => new EmailTakenError(), {
    email_taken: {
      status: 409,
      code: 'CONFLICT',
      message: 'email: an account with this email already exists',
      field: 'email',
    },
  }),
  domain<UsageErrorKind>('usage', USAGE_ERROR_ANSWERS, (kind) => new UsageError(kind, WHY), {
    invalid_request: { status: 400, code: 'BAD_REQUEST' },
  }),
];

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'invalid_request_error',
  429: 'rate_limit_error',
  503: 'service_unavailable',
};

const context = lambdaContext();
const event = publicGetEvent;

/** What a route that throws `error` answers, in the envelope style or OpenAI's. */
async function answerTo(error: unknown, style: 'envelope' | 'openai'): Promise<APIGatewayProxyResult> {
  const route = { ...routeById('openapi-get'), id: `errors-${style}`, errorStyle: style, envelopeMeta: false };
  const handler = defineHandler(route, {
    handle: async () => {
      throw error;
    },
  });
  return (await handler(event, context)) as APIGatewayProxyResult;
}

// One INFO line per refused call would bury the test's output; the answers are what is checked.
beforeAll(() => logger.setLogLevel('WARN'));

describe.each(DOMAINS.map((d) => [d.name, d] as const))('%s', (_name, { answers, make, expected }) => {
  test('the test names exactly the kinds of the domain', () => {
    expect(Object.keys(expected).sort()).toEqual(Object.keys(answers).sort());
  });

  test.each(Object.entries(expected))('%s', async (kind, want) => {
    const message = want.message ?? WHY;
    const field = want.field;
    const envelope = await answerTo(make(kind), 'envelope');
    expect(envelope.statusCode).toBe(want.status);
    expect(envelope.headers?.['Retry-After']).toBe(want.retryAfter);
    expect(JSON.parse(envelope.body)).toEqual({
      success: false,
      error: { code: want.code, message, ...(field ? { field } : {}) },
    });
    const openai = await answerTo(make(kind), 'openai');
    expect(openai.statusCode).toBe(want.status);
    expect(JSON.parse(openai.body)).toEqual({
      error: { message, type: OPENAI_TYPES[want.status] ?? 'api_error', code: want.code, param: field ?? null },
    });
  });
});

test("a domain error's own field and delay win over its table's defaults", async () => {
  const answer = await answerTo(new SearchError('rate_limited', 'slow', { retryAfterMs: 7_200 }), 'envelope');
  expect(answer.headers?.['Retry-After']).toBe('8');
  expect(JSON.parse(answer.body).error.message).toBe('slow; retry after 8 s');
  const named = await answerTo(new ChatError('invalid_request', 'messages: empty', { field: 'messages' }), 'openai');
  expect(JSON.parse(named.body).error.param).toBe('messages');
});

test('a job the caller has not is answered in the words of its kind', async () => {
  const video = await answerTo(new JobNotFoundError('job_x', VIDEO_TASK_NOT_FOUND), 'envelope');
  expect([video.statusCode, JSON.parse(video.body).error]).toEqual([
    404,
    { code: 'NOT_FOUND', message: 'Video task not found', field: 'task_id' },
  ]);
  const fashion = await answerTo(new JobNotFoundError('job_x', FASHION_ERROR_ANSWERS.not_found), 'envelope');
  expect(JSON.parse(fashion.body).error).toEqual({
    code: 'NOT_FOUND',
    message: 'Fashion prediction not found',
    field: 'id',
  });
});
