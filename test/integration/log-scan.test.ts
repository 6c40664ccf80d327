import { adminKey, createKey, login, provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { SimulatorControl } from './support/simulators.js';
import { useGateway } from './support/gateway-fixture.js';
import { SIMULATOR_API_KEY } from '../../local/simulators/simulator-registry.js';

/**
 * A representative run over HTTP (keys, provider keys, dashboard sessions, admin calls, chat
 * whole, streamed and failing over, search), logged at DEBUG with metrics on, then the whole
 * output of the runtime scanned for every credential the run used.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'DEBUG', POWERTOOLS_METRICS_DISABLED: 'false' },
  simulator: 'exa',
  unthrottled: true,
});

const OWN_PROVIDER_KEY = 'sk-own-openai-key-for-the-log-scan-4242';
/** Has our key's shape, but no record: refused, and logged as a refusal. */
const FORGED_KEY = `sk_${'a'.repeat(20)}_${'B'.repeat(43)}`;
const chat = (key: string, body: Record<string, unknown>) =>
  call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(key), 'X-Cache': 'no-cache' },
    body: { model: 'gpt', messages: [{ role: 'user', content: 'log scan' }], ...body },
  });

async function representativeRun() {
  const account = await provisionAccount(local.gateway, 'logscan');
  const sessionId = account.cookie.slice('gw_session='.length);
  const dashboardKey = await createKey(local.gateway, account, { name: 'scan' });
  const secret = await adminKey(local.gateway, { accountId: account.accountId, type: 'secret' });
  const publishable = await adminKey(local.gateway, {
    accountId: account.accountId,
    type: 'publishable',
    allowedOrigins: ['https://scan.example'],
  });
  const openai = SimulatorControl.of(local.gateway, 'openai');
  const statuses: number[] = [];
  const record = async (answer: Promise<{ status: number; text: string }>) => statuses.push((await answer).status);

  await record(chat(secret.key, {}));
  await record(chat(secret.key, { stream: true }));
  await openai.fault('status:500', 1);
  await record(chat(secret.key, { model: 'gpt', fallback: ['claude'] }));
  await record(chat(FORGED_KEY, {}));
  await record(
    call(local.gateway.url('/api/v1/chat/completions'), {
      headers: { ...bearer(publishable.key), Origin: 'https://scan.example' },
      // Publishable keys serve the chat modes only: a refusal, logged as one.
      body: { model: 'gpt', messages: [{ role: 'user', content: 'publishable' }] },
    }),
  );
  await record(call(local.gateway.url('/api/v1/search'), { headers: bearer(secret.key), body: { query: 'log scan' } }));
  // Media jobs: a submit, a status read and a refusal of each, and a prediction streamed.
  const video = await call(local.gateway.url('/api/v1/media/video'), {
    headers: bearer(secret.key),
    body: { prompt: 'log scan [sim:polls=1]' },
  });
  statuses.push(video.status);
  await record(
    call(local.gateway.url(`/api/v1/media/video/status?task_id=${video.body.data.task_id}`), {
      headers: bearer(secret.key),
    }),
  );
  await record(call(local.gateway.url('/api/v1/media/video'), { headers: bearer(FORGED_KEY), body: { prompt: 'x' } }));
  const fashion = { model_name: 'model-create', inputs: { prompt: 'log scan [sim:polls=1]' } };
  const run = await call(local.gateway.url('/api/v1/fashion/run'), { headers: bearer(secret.key), body: fashion });
  statuses.push(run.status);
  await record(
    call(local.gateway.url(`/api/v1/fashion/status/${run.body.data.prediction_id}`), { headers: bearer(secret.key) }),
  );
  await record(call(local.gateway.url('/api/v1/fashion/subscribe'), { headers: bearer(secret.key), body: fashion }));
  await record(
    call(local.gateway.url('/api/v1/fashion/run'), { headers: bearer(secret.key), body: { model_name: 'x' } }),
  );
  const stored = await call(local.gateway.url('/api/v1/provider-keys'), {
    headers: account.session,
    body: { provider: 'openai', slug: 'scan', apiKey: OWN_PROVIDER_KEY },
  });
  statuses.push(stored.status);
  await record(chat(secret.key, {}));
  await record(call(local.gateway.url('/api/v1/provider-keys'), { headers: { Cookie: account.cookie } }));
  await record(
    call(local.gateway.url(`/api/v1/provider-keys/${stored.body.data.id}`), {
      method: 'DELETE',
      headers: account.session,
    }),
  );
  await record(call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: account.cookie } }));
  await record(call(local.gateway.url('/api/v1/keys'), { headers: bearer(local.gateway.info.adminToken) }));
  await record(
    call(local.gateway.url(`/api/v1/keys/${dashboardKey.keyId}`), { method: 'DELETE', headers: account.session }),
  );
  await record(call(local.gateway.url('/api/v1/usage'), { headers: bearer(local.gateway.info.apiKey) }));
  await record(
    call(local.gateway.url(`/api/admin/v1/usage?accountId=${account.accountId}`), {
      headers: bearer(local.gateway.info.adminToken),
    }),
  );
  await record(call(local.gateway.url('/api/v1/auth/session'), { headers: { Cookie: account.cookie } }));
  const second = await login(local.gateway, account.email, account.password);
  await record(
    call(local.gateway.url('/api/v1/auth/logout'), {
      method: 'POST',
      headers: { Cookie: second, Origin: local.gateway.info.baseUrl },
    }),
  );
  await record(call(local.gateway.url('/api/v1/auth/session'), { headers: { Cookie: second } }));
  // After-response work (usage, cache) lands within the write-behind window.
  await new Promise((done) => setTimeout(done, 300));

  const credentials = {
    'first API key': local.gateway.info.apiKey,
    'dashboard-created key': dashboardKey.key,
    'admin-created secret key': secret.key,
    'publishable key': publishable.key,
    'forged key': FORGED_KEY,
    'admin token': local.gateway.info.adminToken,
    "caller's provider key": OWN_PROVIDER_KEY,
    'platform provider key': SIMULATOR_API_KEY,
    'session id': sessionId,
    'second session id': second.slice('gw_session='.length),
  };
  return { statuses, credentials, accountId: account.accountId };
}

test('a full run logs no API key, provider key, admin token or session id', async () => {
  const { statuses, credentials, accountId } = await representativeRun();
  expect(statuses).toEqual([
    200, 200, 200, 401, 403, 200, 200, 200, 401, 200, 200, 200, 400, 201, 200, 200, 204, 200, 403, 204, 200, 200, 200,
    204, 401,
  ]);

  // `npm start` prints its own first key in the banner on purpose; everything else is logs.
  const output = local.gateway.logs();
  for (const [name, credential] of Object.entries(credentials)) {
    // The whole credential, and its random part alone: a line that dropped a prefix still leaks.
    for (const part of new Set([credential, credential.slice(-24)])) {
      expect([name, output.includes(part)]).toEqual([name, false]);
    }
  }

  // The scan saw real logs: request lines carry the call's keys, and metrics were written.
  const lines = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const chatLines = lines.filter((line) => line['message'] === 'request' && line['route'] === 'chat-completions');
  expect(chatLines.length).toBeGreaterThanOrEqual(6);
  expect(chatLines.filter((line) => line['accountId'] === accountId).length).toBe(4);
  for (const line of chatLines) {
    expect(line).toEqual(
      expect.objectContaining({ requestId: expect.any(String), function_request_id: expect.any(String) }),
    );
  }
  expect(lines.some((line) => '_aws' in line)).toBe(true);
}, 60_000);
