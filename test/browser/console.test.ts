import { jest } from '@jest/globals';
import { request } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import {
  accessibility,
  cuttableLink,
  launchBrowser,
  openPage,
  screenshot,
  type CuttableLink,
  type WatchedPage,
} from './console-browser.js';
import { eventsOf, sessionEvents } from '../integration/support/arena.js';
import { bearer, call } from '../integration/support/http.js';
import { useGateway } from '../integration/support/gateway-fixture.js';
import { authenticator, standInTotpClock } from '../support/authenticator.js';

/**
 * The console (console/) in a real browser against the local runtime, which serves it at `/`
 * (issue 24): the files and their headers, then one signed-in page through every part: keys,
 * provider keys, budgets, the budget webhook and its signing secret, usage, the request log, a
 * battle, a two-round fight, a fight whose connection is cut and resumes, the leaderboard, a
 * replay, a phone's width, sign-out. Each page is checked by axe-core; the console must raise no
 * script error and no CSP violation.
 * Screenshots go to test-artifacts/console/.
 */
// The browser reaches the gateway through a link the test can cut (console-browser.ts): made
// before the gateway starts, so that the gateway admits its origin for the session's writes.
const environment: Record<string, string> = {};
let link: CuttableLink;
beforeAll(async () => {
  link = await cuttableLink();
  environment['GATEWAY_ORIGINS'] = link.origin;
});
afterAll(() => link?.close());
const local = useGateway({ env: environment, account: 'console', key: { via: 'dashboard' } });

/** Generous safety nets only: a step's own wait ends as soon as what it waits for is there. */
const STEP_MS = 60_000;
jest.setTimeout(120_000);

let browser: Browser;
let watched: WatchedPage;
let page: Page;
/** The authenticator the user adds on the Account page, and the password they change to. */
let device: { next: () => Promise<string> };
const newPassword = () => `${local.account.password}-changed`;

beforeAll(async () => {
  const { hostname, port } = new URL(local.gateway.info.baseUrl);
  link.target = { host: hostname, port: Number(port) };
  browser = await launchBrowser();
  watched = await openPage(browser);
  page = watched.page;
  page.setDefaultTimeout(STEP_MS);
}, STEP_MS);
afterAll(() => browser?.close());
afterEach(() => expect(watched.problems.splice(0)).toEqual([]));

const inNav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });

async function checked(name: string): Promise<void> {
  expect(await accessibility(page)).toEqual([]);
  await screenshot(page, name);
}

/** A GET with the path exactly as written: fetch would normalise the dots and backslashes away. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(local.gateway.info.baseUrl);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('the files', () => {
  test('index.html at / and at any page path, with a strict CSP and no caching', async () => {
    for (const path of ['/', '/keys', '/arena/some-session']) {
      const answer = await fetch(local.gateway.url(path));
      expect([path, answer.status]).toEqual([path, 200]);
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(answer.headers.get('cache-control')).toBe('no-cache');
      const csp = answer.headers.get('content-security-policy') ?? '';
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
      ])
        expect(csp).toContain(directive);
      expect(csp).not.toContain('unsafe-inline');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await answer.text();
      expect(html).toContain('<div id="console-root">');
      // Nothing inline: every script is a file of the console's own.
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    }
  });

  test('hashed assets are immutable and typed; a missing file is 404', async () => {
    const html = await (await fetch(local.gateway.url('/'))).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(local.gateway.url(script));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(local.gateway.url('/assets/missing-0000.js'))).status).toBe(404);
  });

  test('no path reaches outside the build, however it is encoded', async () => {
    for (const path of [
      '/..%2f..%2fpackage.json',
      '/%2e%2e/%2e%2e/package.json',
      '/%2e%2e%2f%2e%2e%2fpackage.json',
      '/..\\..\\package.json',
      '/assets/..%5c..%5cpackage.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/.dist-built',
      '/%00',
      '/%E0%A4%A',
    ]) {
      const answer = await rawGet(path);
      expect([path, answer.status]).toEqual([path, answer.status === 400 ? 400 : 404]);
      expect(answer.body).not.toContain('"devDependencies"');
    }
  });

  test('/api/ paths never fall to the console', async () => {
    const missing = await call(local.gateway.url('/api/v1/nothing'));
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });
});

describe('a signed-in user', () => {
  test('signs in', async () => {
    await page.goto(`${link.origin}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await checked('sign-in');
    await page.getByLabel('E-mail').fill(local.account.email);
    await page.getByLabel('Password').fill(local.account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Keys', level: 1 }).waitFor();
    await page.getByText(local.account.email).waitFor();
  });

  test('works from the keyboard: a skip link first, then the navigation, each focus visible', async () => {
    await page.goto(`${link.origin}/keys`);
    await page.getByRole('heading', { name: 'Keys', level: 1 }).waitFor();
    const focused = () =>
      page.evaluate(
        `[document.activeElement.textContent.trim(), getComputedStyle(document.activeElement).outlineStyle]`,
      );
    await page.keyboard.press('Tab');
    expect(await focused()).toEqual(['Skip to content', 'solid']);
    await page.keyboard.press('Tab');
    expect(await focused()).toEqual(['Keys', 'solid']);
    await page.keyboard.press('Tab');
    expect(await focused()).toEqual(['Usage', 'solid']);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
    await inNav('Keys').click();
    await page.getByRole('heading', { name: 'Keys', level: 1 }).waitFor();
  });

  test('creates a key (shown once), renames it with a budget, and revokes it after a confirmation', async () => {
    await page.getByLabel('Name', { exact: true }).first().fill('ci key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-key').textContent();
    expect(secret).toMatch(/^sk_[a-z0-9]{20}_/);
    await page.getByRole('button', { name: 'Done' }).click();

    const row = page.getByRole('listitem', { name: 'Key ci key' });
    await row.getByRole('button', { name: 'Edit' }).click();
    const editor = row.getByRole('form', { name: 'Edit ci key' });
    await editor.getByLabel('Name').fill('renamed key');
    await editor.getByLabel('Budget (USD)').fill('5');
    await editor.getByRole('button', { name: 'Save' }).click();
    const renamed = page.getByRole('listitem', { name: 'Key renamed key' });
    await renamed.getByText('$0.00 of $5.00 per month').waitFor();
    await renamed.getByRole('button', { name: 'Disable' }).click();
    await renamed.getByText('disabled', { exact: true }).waitFor();
    expect((await call(local.gateway.url('/api/v1/models'), { headers: bearer(secret!) })).status).toBe(401);
    await renamed.getByRole('button', { name: 'Enable' }).click();
    await renamed.getByText('enabled', { exact: true }).waitFor();
    await checked('keys');

    await renamed.getByRole('button', { name: 'Revoke' }).click();
    await renamed.getByRole('button', { name: 'Revoke for good' }).click();
    await renamed.waitFor({ state: 'detached' });
    const listed = await call(local.gateway.url('/api/v1/keys'), { headers: local.account.session });
    expect(listed.body.data.keys.map((key: { name: string }) => key.name)).not.toContain('renamed key');
  });

  test('adds a provider key, sees only its last four characters, and deletes it', async () => {
    const panel = page.getByRole('region', { name: 'Provider keys', exact: true });
    await panel.getByLabel('Provider', { exact: true }).selectOption('anthropic');
    await panel.getByLabel('Slug').fill('my-anthropic');
    await panel.getByLabel('Provider API key').fill('sk-ant-test-1234567890wxyz');
    await panel.getByRole('button', { name: 'Add provider key' }).click();
    const row = panel.getByRole('row', { name: /my-anthropic/ });
    await row.getByText('wxyz').waitFor();
    expect(await row.textContent()).not.toContain('1234567890');
    await checked('provider-keys');
    await row.getByRole('button', { name: 'Delete my-anthropic' }).click();
    await row.getByRole('button', { name: 'Delete my-anthropic for good' }).click();
    await panel.getByText('Provider key my-anthropic deleted.').waitFor();
    await row.waitFor({ state: 'detached' });
  });

  test('sets the account budget and sees the usage chart', async () => {
    const chat = await call(local.gateway.url('/api/v1/chat/completions'), {
      headers: bearer(local.key),
      body: { model: 'gpt', messages: [{ role: 'user', content: 'Say hi. [sim:words=3]' }] },
    });
    expect(chat.status).toBe(200);
    await inNav('Usage').click();
    await page.getByTestId('usage-chart').waitFor();
    await page.getByLabel('Account budget (USD)').fill('20');
    await page.getByRole('button', { name: 'Save budget' }).click();
    await page.getByText('Account budget saved.').waitFor();
    await page.getByText(/Account: \$[\d.]+ spent.* of \$20\.00 per month/).waitFor();
    const budget = await call(local.gateway.url('/api/v1/budget'), { headers: local.account.session });
    expect(budget.body.data.budget).toMatchObject({ limitUsd: 20, period: 'month' });
    await checked('usage');
  });

  test('sets a budget webhook that survives a reload and a budget save, refuses one that is not public beside its field, and removes it', async () => {
    const readBudget = async () =>
      (await call(local.gateway.url('/api/v1/budget'), { headers: local.account.session })).body.data;
    const form = page.getByRole('form', { name: 'Budget webhook' });
    const field = form.getByLabel('Webhook URL');
    // Public-looking, never delivered to: no budget crosses a threshold here.
    const hook = 'https://hooks.example.com/budget?token=t1';
    await field.fill(hook);
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByText('Budget webhook saved.').waitFor();
    expect(await readBudget()).toMatchObject({ budget: { limitUsd: 20 }, webhookUrl: hook });

    await page.reload();
    await page.getByTestId('budget-webhook-state').getByText(hook).waitFor();
    expect(await field.inputValue()).toBe(hook);
    // The budget's own form sends the budget alone: the webhook stays.
    await page.getByLabel('Account budget (USD)').fill('25');
    await page.getByRole('button', { name: 'Save budget' }).click();
    await page.getByText('Account budget saved.').waitFor();
    expect(await readBudget()).toMatchObject({ budget: { limitUsd: 25 }, webhookUrl: hook });

    for (const refused of ['http://example.com/x', 'https://10.0.0.1/x', 'https://localhost/x']) {
      await field.fill(refused);
      await form.getByRole('button', { name: 'Save webhook' }).click();
      const message = form.getByRole('alert');
      await message.waitFor();
      expect([refused, await message.textContent()]).toEqual([
        refused,
        expect.stringMatching(/^webhookUrl: must be a public https URL/),
      ]);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect((await field.getAttribute('aria-describedby'))!.split(' ')).toContain(await message.getAttribute('id'));
      if (refused.startsWith('http:')) await checked('usage-webhook-refused');
      // Nothing saved: the account keeps the webhook it had, and the page says so.
      expect((await readBudget()).webhookUrl).toBe(hook);
      await page.getByTestId('budget-webhook-state').getByText(hook).waitFor();
    }
    // Typing again clears the refusal.
    await field.fill(hook);
    expect(await form.getByRole('alert').count()).toBe(0);
    expect(await field.getAttribute('aria-invalid')).toBeNull();

    await form.getByRole('button', { name: 'Remove webhook' }).click();
    await page.getByText('Budget webhook removed.').waitFor();
    await page.getByTestId('budget-webhook-state').getByText('No budget webhook').waitFor();
    expect(await field.inputValue()).toBe('');
    expect(await readBudget()).toMatchObject({ budget: { limitUsd: 25 }, webhookUrl: null });
  });

  test("reveals the webhook signing secret the API answers for the page's own session, copies it, and rotates it after a confirmation", async () => {
    // The browser's own session cookie, so that the test's read is of the same session the page uses.
    const cookie = (await page.context().cookies()).find((c) => c.name === 'gw_session')!;
    const readSecret = async () =>
      (
        await call(local.gateway.url('/api/v1/webhooks/secret'), {
          headers: { Cookie: `gw_session=${cookie.value}` },
        })
      ).body.data;
    const panel = page.getByRole('region', { name: 'Webhook signing secret' });
    const secret = panel.getByTestId('webhook-secret');
    expect(await secret.count()).toBe(0);
    await panel.getByRole('button', { name: 'Reveal secret' }).click();
    const shown = await secret.textContent();
    expect(shown).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(shown).toBe((await readSecret()).secret);

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: link.origin });
    await panel.getByRole('button', { name: 'Copy secret' }).click();
    await panel.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(shown);

    const focused = () => page.evaluate('document.activeElement.textContent.trim()');
    const confirmation = panel.getByRole('alertdialog', { name: 'Rotate the webhook secret' });
    // Kept: the confirmation closes and nothing changes.
    await panel.getByRole('button', { name: 'Rotate secret' }).click();
    await confirmation.getByRole('button', { name: 'Keep the current secret' }).click();
    await confirmation.waitFor({ state: 'detached' });
    expect(await focused()).toBe('Rotate secret');
    expect((await readSecret()).secret).toBe(shown);

    await panel.getByRole('button', { name: 'Rotate secret' }).click();
    await confirmation.getByText(/Every receiver .* must be updated with it/).waitFor();
    expect(await focused()).toBe('Keep the current secret');
    await checked('usage-webhook-secret');
    await confirmation.getByRole('button', { name: 'Rotate for good' }).click();
    await panel.getByText(/^New secret made\./).waitFor();
    await confirmation.waitFor({ state: 'detached' });
    expect(await focused()).toBe('Rotate secret');
    const rotated = await secret.textContent();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(shown);
    expect(await readSecret()).toMatchObject({ secret: rotated, previousSecret: shown });
    await panel.getByText(/^The previous secret signs too/).waitFor();

    await panel.getByRole('button', { name: 'Hide secret' }).click();
    await secret.waitFor({ state: 'detached' });
    expect(await panel.textContent()).not.toContain(rotated);
  });

  test('finds the request in the log and opens its details', async () => {
    await inNav('Requests').click();
    const log = page.getByTestId('request-log');
    const row = log.getByRole('row', { name: /chat-completions/ }).first();
    await row.waitFor();
    await row.getByRole('button').click();
    const detail = page.getByRole('region', { name: 'Request details', exact: true });
    await detail.getByText('chat-completions').waitFor();
    await checked('requests');
  });

  test('runs a battle: both answers side by side with their searches and sources, no winner', async () => {
    await inNav('Arena').click();
    await page.getByLabel('Prompt').fill('Name a prime. [sim:search] [sim:words=3]');
    await page.getByRole('button', { name: 'Start battle' }).click();
    await page.getByTestId('arena-winner').getByText('a battle has no winner').waitFor();
    for (const agent of ['gpt', 'claude']) {
      const answer = page.getByRole('article', { name: `Answer of ${agent}` });
      expect(await answer.locator('.answer-text').textContent()).toMatch(/\w/);
      // Its search, and the sources it cited, as links.
      await answer.getByText(/^Searched: /).waitFor();
      expect(await answer.getByRole('link').count()).toBeGreaterThan(0);
    }
    await checked('arena-battle');
  });

  test('runs a two-round fight with a synthesis to its winner', async () => {
    await page.getByLabel('Fight (rounds and votes)').check();
    // Three models: a ballot shows every answer but the judge's own, so two would compare nothing.
    await page.getByLabel('gemini').check();
    await page.getByLabel('Rounds', { exact: true }).fill('2');
    await page.getByLabel('Synthesize a final answer').check();
    await page.getByLabel('Prompt').fill('Name a prime. [sim:words=3]');
    await page.getByRole('button', { name: 'Start fight' }).click();
    const winner = page.getByTestId('arena-winner');
    await winner.getByText(/^Winner: /).waitFor();
    expect(await page.getByTestId('round-winner').count()).toBe(2);
    expect(await page.getByRole('table', { name: 'Session leaderboard' }).count()).toBe(1);
    expect(await page.getByRole('article', { name: 'Synthesis' }).locator('.answer-text').textContent()).toMatch(/\w/);
    await page.getByLabel('Synthesize a final answer').uncheck();
    await checked('arena-fight');
  });

  test('a fight whose connection is cut resumes from the last event, each event once', async () => {
    await page.getByLabel('Rounds', { exact: true }).fill('1');
    await page.getByLabel('Prompt').fill('Name a prime. [sim:words=20] [sim:token_ms=40]');
    await page.getByRole('button', { name: 'Start fight' }).click();
    // Cut while the first answer is being written.
    await page.getByRole('article', { name: 'Answer of gpt' }).getByText(/\w/).first().waitFor();
    link.cut();
    await page.getByTestId('arena-status').getByText('Connection lost: reconnecting…').waitFor();
    link.restore();
    await page
      .getByTestId('arena-winner')
      .getByText(/^Winner: /)
      .waitFor();
    // The page applied exactly the session's logged events: none lost to the cut, none twice.
    const sessionId = new URL(page.url()).pathname.split('/').pop()!;
    const logged = await sessionEvents(local.gateway, sessionId, local.key);
    expect(logged.status).toBe(200);
    expect(await page.getByTestId('arena-session').getAttribute('data-events')).toBe(String(logged.events.length));
    const votes = page.getByRole('list', { name: 'Votes in round 1' }).getByRole('listitem');
    expect(await votes.count()).toBe(eventsOf(logged, 'vote_update').length);
    for (const { agent, message } of eventsOf(logged, 'agent_complete'))
      expect(
        await page
          .getByRole('article', { name: `Answer of ${agent}` })
          .locator('.answer-text')
          .textContent(),
      ).toBe(message);
    await screenshot(page, 'arena-resumed');
  });

  test("shows the account's leaderboard and replays a past session", async () => {
    await page.getByRole('button', { name: 'Refresh leaderboard' }).click();
    await page
      .getByTestId('ratings')
      .getByRole('row', { name: /gpt|claude/ })
      .first()
      .waitFor();
    const replay = page.getByRole('link', { name: /^Replay fight/ }).first();
    await replay.click();
    await page
      .getByTestId('arena-winner')
      .getByText(/^Winner: /)
      .waitFor();
    await checked('arena-leaderboard');
  });

  test("fits a phone's width", async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    // What reaches past the right edge, by tag and class, but within a box that scrolls sideways: none.
    const tooWide = () =>
      page.evaluate(`[...document.querySelectorAll('body *')]
        .filter((element) => !element.closest('.scroll') && element.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map((element) => element.tagName.toLowerCase() + (element.className ? '.' + element.className : ''))`);
    for (const name of ['Keys', 'Usage', 'Requests', 'Arena']) {
      await inNav(name).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      expect([name, await tooWide()]).toEqual([name, []]);
    }
    await page
      .getByRole('link', { name: /^Replay fight/ })
      .first()
      .click();
    await page
      .getByTestId('arena-winner')
      .getByText(/^Winner: /)
      .waitFor();
    expect(['a fight', await tooWide()]).toEqual(['a fight', []]);
    await screenshot(page, 'phone-arena');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('adds an authenticator, changes the password with its code, and signs in again with both once the session ends', async () => {
    await inNav('Account').click();
    await page.getByLabel('Password for the authenticator').fill(local.account.password);
    await page.getByRole('button', { name: 'Add an authenticator' }).click();
    device = authenticator(
      (await page.getByTestId('mfa-secret').textContent())!,
      standInTotpClock(local.gateway.aws.cognito),
    );
    await page.getByLabel('Code from the app').fill(await device.next());
    await page.getByRole('button', { name: 'Turn on MFA' }).click();
    await page.getByText('Authenticator added').waitFor();
    await checked('account');

    await page.getByLabel('Current password', { exact: true }).fill(local.account.password);
    await page.getByLabel('New password', { exact: true }).fill(newPassword());
    await page.getByRole('button', { name: 'Change password' }).click();
    // With MFA on, the change takes the app's code too: the form asks for it.
    await page.getByLabel('Authenticator code', { exact: true }).fill(await device.next());
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();

    // The session's cookie gone, as when it expires: the next call finds out, and the page asks to sign in.
    await page.context().clearCookies();
    await inNav('Keys').click();
    await page.getByText('Your session expired or was ended. Sign in again.').waitFor();
    await page.getByLabel('E-mail').fill(local.account.email);
    await page.getByLabel('Password', { exact: true }).fill(newPassword());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authenticator code').fill(await device.next());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Keys', level: 1 }).waitFor();
  });

  test('the accessibility check finds a violation when there is one', async () => {
    await page.evaluate(
      `document.querySelector('main').append(Object.assign(document.createElement('input'), { id: 'unlabelled' }))`,
    );
    expect((await accessibility(page)).join('\n')).toMatch(/^label: .*unlabelled/m);
    await page.evaluate(`document.getElementById('unlabelled').remove()`);
    expect(await accessibility(page)).toEqual([]);
  });

  test('signs out: the sign-in form again, and the arena key revoked', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('Signed out.').waitFor();
    // The password change ended the test's own session too: a new one, with the new password and a code.
    const signedIn = await call(local.gateway.url('/api/v1/auth/login'), {
      body: { email: local.account.email, password: newPassword(), totpCode: await device.next() },
    });
    expect(signedIn.status).toBe(200);
    const cookie = /gw_session=[^;]*/.exec(signedIn.headers.get('set-cookie') ?? '')![0];
    const listed = await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: cookie } });
    expect(listed.body.data.keys.map((key: { name: string }) => key.name)).not.toContain('Console arena (browser)');
  });
});
