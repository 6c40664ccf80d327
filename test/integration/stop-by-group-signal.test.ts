import { LocalGateway } from '../../local/child-runtime.js';
import { createKey, provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { accountUsage, type DayTotal, type LedgerEntry } from './support/ledger-entries.js';
import { onLinux, processesNaming } from './support/processes.js';

/**
 * A terminal's Ctrl-C signals the whole foreground process group: npm, the gateway and its
 * children alike. Whatever signal reaches them, the runtime must stop in order (the gateway
 * drains, then the stand-ins, then the database) so that every answered request is metered.
 * Runs the real `npm start`, under load, and checks after a restart on the same data folder.
 */
const REQUESTS = 200;
const CONCURRENCY = 8;

test.each(['SIGINT', 'SIGTERM'] as const)(
  '%s to npm start’s process group mid-load loses no answered request’s usage',
  async (signal) => {
    const gateway = await LocalGateway.start({ POWERTOOLS_LOG_LEVEL: 'WARN' }, { viaNpm: true });
    try {
      const account = await provisionAccount(gateway, `group-${signal}`);
      const { key } = await createKey(gateway, account);
      const answered = await loadAndSignal(gateway, key, signal);
      await gateway.restart();

      // The totals catch up after the restart: the aggregator reads on from where it stopped.
      const { ledger, days } = await caughtUp(gateway, account.accountId);
      // Enough of the load was answered before the signal for the check to mean something.
      expect(answered.length).toBeGreaterThan(REQUESTS / 4);
      const metered = new Set(ledger.map((entry) => entry.requestId));
      expect(answered.filter((id) => !metered.has(id))).toEqual([]);
      expect(totals(days)).toEqual(ledgerSums(ledger));
    } finally {
      await gateway.dispose();
    }
  },
  120_000,
);

/** The children sit outside the gateway's process group, so they must not outlive it. */
onLinux(
  'a killed gateway leaves no child behind',
  async () => {
    const gateway = await LocalGateway.start();
    try {
      expect(processesNaming(gateway.dataDir).length).toBeGreaterThanOrEqual(2); // the database and the stand-ins
      process.kill(gateway.pid!, 'SIGKILL');
      const deadline = Date.now() + 15_000;
      while (processesNaming(gateway.dataDir).length > 0 && Date.now() < deadline) await sleep(50);
      expect(processesNaming(gateway.dataDir)).toEqual([]);
    } finally {
      await gateway.dispose();
    }
  },
  60_000,
);

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Sends REQUESTS chat completions, CONCURRENCY at a time, and signals the group once half
 * have been sent. Returns the request ids of those answered in full.
 */
async function loadAndSignal(gateway: LocalGateway, key: string, signal: NodeJS.Signals): Promise<string[]> {
  const answered: string[] = [];
  let sent = 0;
  let stopped: Promise<void> | undefined;
  const worker = async () => {
    while (sent < REQUESTS) {
      sent += 1;
      if (sent === REQUESTS / 2) stopped = gateway.signalGroup(signal);
      const answer = await call(gateway.url('/api/v1/chat/completions'), {
        headers: bearer(key),
        body: { model: 'gpt', messages: [{ role: 'user', content: `request ${sent} [sim:words=20]` }] },
      }).catch(() => undefined); // refused once the gateway stops accepting
      if (answer?.status === 200 && answer.body?.choices?.[0]?.message) {
        answered.push(answer.headers.get('x-request-id')!);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await stopped;
  return answered;
}

/** The account's ledger and day totals once the totals add up to the ledger (600 reads at most, 50 ms apart). */
async function caughtUp(gateway: LocalGateway, accountId: string) {
  for (let poll = 1; ; poll++) {
    const usage = await accountUsage(gateway, accountId);
    const equal = JSON.stringify(totals(usage.days)) === JSON.stringify(ledgerSums(usage.ledger));
    if (equal || poll >= 600) return usage;
    await sleep(50);
  }
}

function totals(days: DayTotal[]) {
  return {
    requests: days.reduce((sum, day) => sum + day.requests, 0),
    tokens: days.reduce((sum, day) => sum + day.tokens, 0),
    costMicroUsd: days.reduce((sum, day) => sum + day.costMicroUsd, 0),
  };
}

function ledgerSums(ledger: LedgerEntry[]) {
  return {
    requests: ledger.length,
    tokens: ledger.reduce((sum, entry) => sum + entry.promptTokens + entry.completionTokens, 0),
    costMicroUsd: ledger.reduce((sum, entry) => sum + entry.costMicroUsd, 0),
  };
}
