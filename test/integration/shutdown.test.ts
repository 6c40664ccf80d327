import { useGateway } from './support/gateway-fixture.js';
import { bearer, call } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';

/**
 * Usage is written after the response, in batches that wait a little for company
 * (STORE_WRITE_BEHIND_MS). Stopping the runtime right after an answer must still let those
 * writes land before the embedded DynamoDB stops: nothing metered is lost on a clean stop.
 */
const local = useGateway({ account: 'shutdown', key: { via: 'dashboard' } });

test('a stop right after an answer keeps its usage and its cached answer', async () => {
  const ask = () =>
    call(local.gateway.url('/api/v1/chat/completions'), {
      headers: bearer(local.key),
      body: { model: 'gpt', messages: [{ role: 'user', content: 'just before the stop' }] },
    });
  const answer = await ask();
  expect(answer.status).toBe(200);
  const requestId = answer.headers.get('x-request-id')!;
  await local.gateway.restart();

  const [entry] = await ledgerEntries(local.gateway, local.account.accountId, requestId, 1);
  expect(entry).toMatchObject({ requestId, outcome: 'ok', cached: false });
  expect((await ask()).headers.get('x-cache')).toBe('HIT');
}, 60_000);
