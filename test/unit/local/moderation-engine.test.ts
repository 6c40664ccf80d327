import {
  LOCAL_MODERATION_KEY_SECRET,
  moderationWiring,
  parseLocalModeration,
} from '../../../local/moderation-engine.js';

describe('GATEWAY_MODERATION', () => {
  test('local by default; openai by name; anything else refused at start', () => {
    expect(parseLocalModeration(undefined)).toBe('local');
    expect(parseLocalModeration(' ')).toBe('local');
    expect(parseLocalModeration('local')).toBe('local');
    expect(parseLocalModeration('openai')).toBe('openai');
    expect(() => parseLocalModeration('bedrock')).toThrow(/GATEWAY_MODERATION "bedrock" must be local or openai/);
  });

  test('local wires nothing: the functions keep their rule set', () => {
    expect(moderationWiring('local', { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', OPENAI_API_KEY: 'k' })).toBe(
      undefined,
    );
  });

  test('openai points the functions at whatever serves the openai provider, the key in its secret', () => {
    expect(
      moderationWiring('openai', { OPENAI_BASE_URL: 'http://127.0.0.1:4100/v1/', OPENAI_API_KEY: 'sim-local-key' }),
    ).toEqual({
      key: 'sim-local-key',
      environment: {
        GUARDRAILS_MODERATION_URL: 'http://127.0.0.1:4100/v1',
        GUARDRAILS_MODERATION_KEY_SECRET_ID: LOCAL_MODERATION_KEY_SECRET,
      },
    });
    // A real key without a base URL: OpenAI's own API.
    expect(moderationWiring('openai', { OPENAI_API_KEY: 'sk-real' })?.environment['GUARDRAILS_MODERATION_URL']).toBe(
      'https://api.openai.com/v1',
    );
    expect(() => moderationWiring('openai', {})).toThrow(/needs OPENAI_API_KEY/);
  });
});
