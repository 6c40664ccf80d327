import { startSimulator, type RunningSimulator } from '../../../../local/simulators/harness.js';
import {
  PROMPT_SEED_DIR,
  promptServiceSimulator,
  startPromptService,
} from '../../../../local/simulators/prompt-service.js';
import { applyPrompt } from '../../../../lambdas/chat/prompts/apply-prompt.js';
import { readConfiguration } from '../../../../lambdas/config/configuration.js';
import { ENV } from '../../../../lambdas/config/environment.js';
import {
  createPromptServiceClient,
  PromptServiceError,
  type PromptServiceClient,
} from '../../../../lambdas/chat/prompts/prompt-service-client.js';

/** The client over loopback against the simulator, which serves local/prompts/. */

let sim: RunningSimulator;
let client: PromptServiceClient;
/** The configuration's `promptService`, read by the client at each call; tests change it between calls. */
const service: { url: string | undefined; key: string | undefined; keySecretId: string | undefined } = {
  url: undefined,
  key: undefined,
  keySecretId: undefined,
};
const signal = () => new AbortController().signal;

/** When the simulator's last injected delay ends: its timer must not outlive the suite. */
let delaysEndAt = 0;

async function fault(spec: string, times = 1): Promise<void> {
  const delay = /^delay_headers:(\d+)$/.exec(spec);
  if (delay) delaysEndAt = Math.max(delaysEndAt, Date.now() + Number(delay[1]) + 50);
  const response = await fetch(`${sim.url}/__sim/faults`, {
    method: 'POST',
    body: JSON.stringify({ fault: spec, times }),
  });
  expect(response.status).toBe(201);
}

async function failureOf(promise: Promise<unknown>): Promise<PromptServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PromptServiceError);
  return error as PromptServiceError;
}

const promptFetches = () => sim.requests.filter((r) => r.path.startsWith('/v1/prompts/'));

beforeAll(async () => {
  sim = await startSimulator(promptServiceSimulator(PROMPT_SEED_DIR));
});
afterAll(async () => {
  await new Promise((done) => setTimeout(done, Math.max(0, delaysEndAt - Date.now())));
  await sim.close();
});
beforeEach(async () => {
  Object.assign(
    service,
    readConfiguration({ [ENV.promptServiceUrl]: sim.url + '/', [ENV.promptServiceKey]: 'pk-test' }).promptService,
  );
  client = createPromptServiceClient({ service, timeoutMs: 150 });
  sim.requests.length = 0;
  await fetch(`${sim.url}/__sim/faults`, { method: 'DELETE' });
});

describe('fetching templates', () => {
  test('a pinned version, with the key as a bearer token', async () => {
    const result = await client.fetchTemplate({ id: 'support-reply', version: 1 }, signal());
    expect(result.found && result.template).toMatchObject({ id: 'support-reply', version: 1, labels: [] });
    const [request] = promptFetches();
    expect(request).toMatchObject({ method: 'GET', path: '/v1/prompts/support-reply', query: { version: '1' } });
    expect(request!.headers.authorization).toBe('Bearer pk-test');
  });

  test('without a version: the production label', async () => {
    const result = await client.fetchTemplate({ id: 'support-reply' }, signal());
    expect(result.found && result.template).toMatchObject({
      version: 2,
      labels: ['production'],
      model: 'gpt-4o-mini',
      variables: [
        { name: 'customer_name', required: true },
        { name: 'tone', required: false, default: 'friendly' },
      ],
    });
    expect(promptFetches()[0]!.query).toEqual({ label: 'production' });
  });

  test('an unknown id or version is a not-found result, not an error', async () => {
    for (const ref of [{ id: 'nope' }, { id: 'support-reply', version: 9 }, { id: 'nope', version: 1 }]) {
      const result = await client.fetchTemplate(ref, signal());
      expect(result).toEqual({ found: false, message: expect.stringMatching(/^prompt nope|version 9/) });
    }
  });

  test('a refused key is a configuration failure', async () => {
    service.key = 'bad-key';
    const error = await failureOf(client.fetchTemplate({ id: 'summarize' }, signal()));
    expect(error).toMatchObject({ kind: 'config', status: 401 });
    expect(error.message).not.toContain('bad-key');
  });

  test('no URL configured is a configuration failure, read at call time', async () => {
    service.url = undefined;
    expect(await failureOf(client.fetchTemplate({ id: 'summarize' }, signal()))).toMatchObject({ kind: 'config' });
  });

  test('a 5xx is the service being unavailable', async () => {
    await fault('status:503');
    expect(await failureOf(client.fetchTemplate({ id: 'summarize' }, signal()))).toMatchObject({
      kind: 'unavailable',
      status: 503,
    });
    // Transient: the next call goes through.
    expect((await client.fetchTemplate({ id: 'summarize' }, signal())).found).toBe(true);
  });

  test('a slow answer times out as unavailable', async () => {
    await fault('delay_headers:800');
    const started = Date.now();
    const error = await failureOf(client.fetchTemplate({ id: 'summarize' }, signal()));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toContain('150 ms');
    expect(Date.now() - started).toBeLessThan(600);
  });

  test('an unreadable body is unavailable', async () => {
    await fault('malformed_chunk');
    expect(await failureOf(client.fetchTemplate({ id: 'summarize', version: 1 }, signal()))).toMatchObject({
      kind: 'unavailable',
    });
  });

  test("the caller's own abort passes through as its reason", async () => {
    await fault('delay_headers:800');
    const controller = new AbortController();
    const reason = new Error('client left');
    setTimeout(() => controller.abort(reason), 50);
    await expect(client.fetchTemplate({ id: 'summarize' }, controller.signal)).rejects.toBe(reason);
  });
});

describe('caching', () => {
  test('a pinned version is fetched once', async () => {
    for (let i = 0; i < 3; i++)
      expect((await client.fetchTemplate({ id: 'support-reply', version: 1 }, signal())).found).toBe(true);
    expect(promptFetches()).toHaveLength(1);
  });

  test('the production label is cached for 30 s, then asked again', async () => {
    let now = 1_000_000;
    client = createPromptServiceClient({ service, now: () => now });
    await client.fetchTemplate({ id: 'summarize' }, signal());
    now += 29_000;
    await client.fetchTemplate({ id: 'summarize' }, signal());
    expect(promptFetches()).toHaveLength(1);
    now += 1_000;
    await client.fetchTemplate({ id: 'summarize' }, signal());
    expect(promptFetches()).toHaveLength(2);
  });

  test('pinned versions expire after 10 min; a resolved label also fills the pinned entry', async () => {
    let now = 1_000_000;
    client = createPromptServiceClient({ service, now: () => now });
    await client.fetchTemplate({ id: 'support-reply' }, signal());
    await client.fetchTemplate({ id: 'support-reply', version: 2 }, signal());
    expect(promptFetches()).toHaveLength(1);
    now += 10 * 60_000;
    await client.fetchTemplate({ id: 'support-reply', version: 2 }, signal());
    expect(promptFetches()).toHaveLength(2);
  });

  test('not-found answers and failures are not cached', async () => {
    await client.fetchTemplate({ id: 'nope', version: 1 }, signal());
    await client.fetchTemplate({ id: 'nope', version: 1 }, signal());
    await fault('status:500');
    await failureOf(client.fetchTemplate({ id: 'summarize', version: 1 }, signal()));
    expect((await client.fetchTemplate({ id: 'summarize', version: 1 }, signal())).found).toBe(true);
    expect(promptFetches()).toHaveLength(4);
  });
});

describe('the simulator control route', () => {
  const post = (body: unknown) => fetch(`${sim.url}/__prompts`, { method: 'POST', body: JSON.stringify(body) });

  test('adds a version at runtime and moves its labels', async () => {
    const template = {
      id: 'runtime-demo',
      messages: [{ role: 'system', content: 'v{{n}}' }],
      variables: [{ name: 'n', required: true }],
    };
    expect((await post({ ...template, labels: ['production'] })).status).toBe(201);
    const second = await post({
      ...template,
      messages: [{ role: 'system', content: 'second' }],
      labels: ['production'],
    });
    expect(await second.json()).toMatchObject({ version: 2, labels: ['production'] });
    const production = await client.fetchTemplate({ id: 'runtime-demo' }, signal());
    expect(production.found && production.template.version).toBe(2);
    const first = await client.fetchTemplate({ id: 'runtime-demo', version: 1 }, signal());
    expect(first.found && first.template.labels).toEqual([]);
  });

  test('versions are immutable: same content only updates labels, other content is a conflict', async () => {
    const template = { id: 'immutable-demo', version: 1, messages: [{ role: 'system', content: 'x' }] };
    expect((await post(template)).status).toBe(201);
    expect((await post({ ...template, labels: ['staging'] })).status).toBe(201);
    expect((await post({ ...template, messages: [{ role: 'user', content: 'y' }] })).status).toBe(409);
    expect((await post({ id: 'x', messages: [{ role: 'tool', content: 'y' }] })).status).toBe(400);
    const staged = await client.fetchTemplate({ id: 'immutable-demo', label: 'staging' }, signal());
    expect(staged.found && staged.template.labels).toEqual(['staging']);
  });
});

describe('end to end with the seeded templates', () => {
  test('applyPrompt renders support-reply production (v2) with its default tone before the conversation', async () => {
    const messages = await applyPrompt(
      {
        prompt_id: 'support-reply',
        prompt_variables: { customer_name: 'Ada' },
        messages: [{ role: 'user', content: 'Where is my parcel?' }],
      },
      { fetchTemplate: client.fetchTemplate },
      signal(),
    );
    expect(messages).toEqual([
      {
        role: 'system',
        content: 'You are a support agent for Example Corp. Keep a friendly tone and address the customer as Ada.',
      },
      { role: 'assistant', content: 'Hello Ada, how can I help you today?' },
      { role: 'user', content: 'Where is my parcel?' },
    ]);
  });

  test('the local default starts a simulator only when no service is configured', async () => {
    const configured = await startPromptService({ [ENV.promptServiceUrl]: 'https://prompts.example' });
    expect(configured.environment).toEqual({});
    const local = await startPromptService({});
    try {
      expect(local.environment).toEqual({
        [ENV.promptServiceUrl]: local.url,
        [ENV.promptServiceKey]: expect.any(String),
      });
      Object.assign(service, readConfiguration(local.environment).promptService);
      const result = await client.fetchTemplate({ id: 'summarize', version: 1 }, signal());
      expect(result.found && result.template.variables.map((v) => v.name)).toEqual(['text', 'max_sentences']);
    } finally {
      await local.close();
    }
  });
});
