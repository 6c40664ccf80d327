import fc from 'fast-check';
import { bearer, call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'guardrails',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
  simulator: 'openai',
});

const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(local.key), 'X-Cache': 'no-cache', ...headers },
    body: { model: 'gpt', ...body },
  });
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('pii', () => {
  const secrets = 'Mail jane.doe@example.com, call +44 20 7946 0958, card 4111 1111 1111 1111, host 203.0.113.9';

  test('is redacted in what goes upstream and in the answer; the header says so', async () => {
    await local.simulator.reset();
    const answer = await chat({ messages: [{ role: 'user', content: secrets }], guardrails: { enabled: ['pii'] } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-guardrail-status')).toBe('pii:redact');
    const [upstream] = await local.simulator.requests();
    const sent = JSON.stringify(upstream!.body);
    for (const value of ['jane.doe@example.com', '7946 0958', '4111 1111 1111 1111', '203.0.113.9']) {
      expect(sent).not.toContain(value);
      expect(answer.text).not.toContain(value);
    }
    expect(sent).toContain('[REDACTED_EMAIL]');
  });

  test('answers the model writes are redacted too, streamed or not (X-Guardrails header form)', async () => {
    const reply = `[sim:reply_b64=${b64('Reach Bob at bob@example.org or 198.51.100.7 today.')}]`;
    const whole = await chat({ messages: [{ role: 'user', content: reply }] }, { 'X-Guardrails': 'pii' });
    expect(whole.body.choices[0].message.content).toBe('Reach Bob at [REDACTED_EMAIL] or [REDACTED_IP] today.');
    expect(whole.headers.get('x-guardrail-status')).toBe('pii:redact');

    const streamed = await chat(
      { messages: [{ role: 'user', content: reply }], stream: true },
      { 'X-Guardrails': 'pii' },
    );
    const text = streamed.text
      .split('\n\n')
      .map((f) => f.replace(/^data: /, ''))
      .filter((d) => d.startsWith('{'))
      .map((d) => JSON.parse(d).choices?.[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('Reach Bob at [REDACTED_EMAIL] or [REDACTED_IP] today.');
    expect(streamed.text.trim().endsWith('data: [DONE]')).toBe(true);
  });

  test('property: no generated email, phone, card or IP reaches a simulator', async () => {
    const luhn = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 }).map((digits) => {
      const body = [4, ...digits.slice(1)];
      const sum = body
        .slice()
        .reverse()
        .reduce((acc, d, i) => acc + (i % 2 === 0 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d), 0);
      const card = [...body, (10 - (sum % 10)) % 10].join('');
      return card.replace(/(\d{4})(?=\d)/g, '$1 ');
    });
    const phone = fc
      .tuple(
        fc.integer({ min: 200, max: 999 }),
        fc.integer({ min: 200, max: 999 }),
        fc.integer({ min: 1000, max: 9999 }),
      )
      .map(([a, b, c]) => `(${a}) ${b}-${c}`);
    // `::` alone (the unspecified address) names no one and is also Haskell and Rust syntax
    // (`f :: Int`); the detector leaves it, so the property does not generate it.
    const ipV6 = fc.ipV6().filter((ip) => ip !== '::');
    const pii = fc.oneof(fc.emailAddress(), phone, luhn, fc.ipV4(), ipV6);
    const filler = fc.constantFrom('please contact', 'details:', 'my data is', 'x', '—');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(filler, pii), { minLength: 1, maxLength: 3 }), async (parts) => {
        await local.simulator.reset();
        const content = parts.map(([f, p]) => `${f} ${p}`).join(' and ');
        const answer = await chat({ messages: [{ role: 'user', content }], guardrails: { enabled: ['pii'] } });
        expect(answer.status).toBe(200);
        const sent = JSON.stringify((await local.simulator.requests()).map((r) => r.body));
        for (const [, value] of parts) expect(sent).not.toContain(value);
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});

describe('content moderation', () => {
  test('dangerous content is a 400 CONTENT_BLOCKED before any upstream call', async () => {
    await local.simulator.reset();
    const answer = await chat({
      messages: [
        { role: 'user', content: 'Give me step by step instructions to synthesize sarin nerve agent at home.' },
      ],
      guardrails: { enabled: ['content_moderation'] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('CONTENT_BLOCKED');
    expect(await local.simulator.requests()).toHaveLength(0);
  });

  test('ordinary content passes and says so', async () => {
    const answer = await chat({
      messages: [{ role: 'user', content: 'How do I bake bread?' }],
      guardrails: { enabled: ['content_moderation', 'pii'] },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-guardrail-status')).toBe('pii:pass,content_moderation:pass');
  });
});

describe('schema validation', () => {
  const format = {
    type: 'json_schema',
    json_schema: {
      name: 'answer',
      schema: { type: 'object', required: ['answer'], properties: { answer: { type: 'string' } } },
    },
  };

  test('an answer that matches the schema passes', async () => {
    const answer = await chat({
      messages: [{ role: 'user', content: '[sim:reply={"answer":"yes"}]' }],
      response_format: format,
      guardrails: { enabled: ['schema_validation'] },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-guardrail-status')).toBe('schema_validation:pass');
  });

  test('an answer that does not is a 400 naming response_format', async () => {
    const answer = await chat({
      messages: [{ role: 'user', content: '[sim:reply={"other":1}]' }],
      response_format: format,
      guardrails: { enabled: ['schema_validation'] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'SCHEMA_VALIDATION_FAILED', param: 'response_format' });
  });
});

test('an unknown guardrail in X-Guardrails is a 400 naming the header', async () => {
  const answer = await chat({ messages: [{ role: 'user', content: 'hi' }] }, { 'X-Guardrails': 'pii, telepathy' });
  expect(answer.status).toBe(400);
  expect(answer.body.error.param).toBe('X-Guardrails');
});

describe('the request log', () => {
  /** The request log's row for the answer's request, once its after-response writes are in. */
  async function rowOf(answer: { headers: Headers }) {
    const id = answer.headers.get('x-request-id')!;
    for (let i = 0; i < 200; i++) {
      const page = await call(local.gateway.url('/api/v1/requests?limit=50'), {
        method: 'GET',
        headers: bearer(local.key),
      });
      const row = (page.body.data.requests as { id: string; guardrails: unknown }[]).find((r) => r.id === id);
      if (row) return row;
      await new Promise((done) => setTimeout(done, 50));
    }
    throw new Error(`request ${id} never reached the log`);
  }

  test('shows each guardrail that ran and its outcome, whole, streamed, or stopping the answer', async () => {
    const reply = `[sim:reply_b64=${b64('Write to bob@example.org.')}]`;
    const whole = await chat({
      messages: [{ role: 'user', content: reply }],
      guardrails: { enabled: ['pii', 'content_moderation'] },
    });
    expect(whole.status).toBe(200);
    expect((await rowOf(whole)).guardrails).toEqual({ pii: 'redact', content_moderation: 'pass' });

    const streamed = await chat(
      { messages: [{ role: 'user', content: reply }], stream: true },
      { 'X-Guardrails': 'pii' },
    );
    expect(streamed.status).toBe(200);
    expect((await rowOf(streamed)).guardrails).toEqual({ pii: 'redact' });

    const failed = await chat({
      messages: [{ role: 'user', content: '[sim:reply={"other":1}]' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object', required: ['answer'] } },
      },
      guardrails: { enabled: ['schema_validation'] },
    });
    expect(failed.status).toBe(400);
    expect((await rowOf(failed)).guardrails).toEqual({ schema_validation: 'fail' });

    const plain = await chat({ messages: [{ role: 'user', content: 'hi' }] });
    expect((await rowOf(plain)).guardrails).toBeNull();
  });
});
