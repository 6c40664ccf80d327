import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';
import { MAX_SPEECH_CHARACTERS } from '../../lambdas/media/speech-request.js';
import { MAX_QUERY_CHARS, MAX_SNIPPET_CHARS } from '../../lambdas/search/search-types.js';

/**
 * "Characters" over HTTP, as a caller meets them: the search query and the speech text take
 * exactly their limit in emoji (code points, two UTF-16 units each) and refuse one more with a
 * 400 naming the field; snippets made from an emoji query stay within 500 characters, whole.
 */
const EMOJI = '😀';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'characters',
  key: { via: 'dashboard' },
  simulator: 'exa',
});

const post = (path: string, body: unknown) => call(local.gateway.url(path), { headers: bearer(local.key), body });

function expectTooLong(answer: Answer, field: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST', field } });
  expect(answer.body.error.message).toContain(`${field}: must be at most`);
  expect(answer.body.error.message).toContain('characters');
}

test('search: a query of 1000 emoji is answered, with whole snippets of at most 500 characters; 1001 are a 400', async () => {
  await local.simulator.reset();
  const query = EMOJI.repeat(MAX_QUERY_CHARS);
  const answer = await post('/api/v1/search', { query, num_results: 3 });
  expect(answer.status).toBe(200);
  expect(answer.body.data.query).toBe(query);
  const sent = await local.simulator.requests();
  expect(sent.map((request) => (request.body as { query?: string }).query)).toContain(query);
  for (const result of answer.body.data.results as { snippet: string }[]) {
    expect([...result.snippet].length).toBeLessThanOrEqual(MAX_SNIPPET_CHARS);
    expect(result.snippet).not.toMatch(LONE_SURROGATE);
  }

  expectTooLong(await post('/api/v1/search', { query: EMOJI.repeat(MAX_QUERY_CHARS + 1) }), 'query');
});

test('speech: a text of 10,000 emoji is spoken; 10,001 are a 400', async () => {
  const spoken = await post('/api/v1/media/speech', { text: EMOJI.repeat(MAX_SPEECH_CHARACTERS) });
  expect(spoken.status).toBe(200);
  expect(spoken.headers.get('content-type')).toBe('audio/mpeg');

  expectTooLong(await post('/api/v1/media/speech', { text: EMOJI.repeat(MAX_SPEECH_CHARACTERS + 1) }), 'text');
});
