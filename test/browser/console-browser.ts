/**
 * The browser the console tests drive: Debian's chromium through playwright-core, headless, one
 * per test file. Each page it opens records what the console must never do (a script error, a
 * Content-Security-Policy violation), and `accessibility` runs axe-core in the page as it is.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium } from '../../bin/ensure-browser.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
/** Screenshots, kept as the run's artifacts (git-ignored). */
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'console');

export async function launchBrowser(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath)
    throw new Error('no chromium: `npm test` installs it (bin/ensure-browser.mjs), or set CHROMIUM_PATH');
  // --no-sandbox: CI and containers run as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export interface WatchedPage {
  readonly page: Page;
  /** Script errors and CSP violations seen so far. */
  readonly problems: string[];
}

export async function openPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return { page, problems };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's serious and critical violations on the page as it is now, as `rule: help (targets)`.
 * Evaluated through the debugging protocol, which the page's CSP does not govern (a script tag
 * would be refused, as it should be).
 */
export async function accessibility(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  // A string, run in the page: this program is typed for Node, without the DOM's names.
  const violations = await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
  );
  return (violations as AxeViolation[])
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')})`,
    );
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * A TCP relay between the browser and the gateway whose connections the test can cut, as a
 * dropped network does: every open connection is destroyed, and new ones are refused until
 * `restore()`. (Chromium's offline emulation fails new requests but leaves a stream already
 * flowing untouched.)
 */
export interface CuttableLink {
  readonly origin: string;
  /** Where the relay forwards to; set once the gateway has started. */
  target: { host: string; port: number } | undefined;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function cuttableLink(): Promise<CuttableLink> {
  const open = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing || !link.target) return void client.destroy();
    const upstream = connect(link.target.port, link.target.host);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).on('close', () => client.destroy());
    upstream.pipe(client).on('close', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  const link: CuttableLink = {
    origin: `http://127.0.0.1:${port}`,
    target: undefined,
    cut() {
      refusing = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of open) socket.destroy();
        server.close(() => done());
      }),
  };
  return link;
}
