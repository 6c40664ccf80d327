import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENV } from '../../lambdas/config/environment.js';
import { parseTemplate, type PromptTemplate } from '../../lambdas/chat/prompts/prompt-template.js';
import type { SimExchange, SimResponse, SimulatorDefinition } from './harness.js';
import { startOnKeptPort } from './simulator-ports.js';

/**
 * The prompt-template service stand-in: the wire API documented in
 * lambdas/chat/prompts/prompt-service-client.ts, served from seed files, with the
 * harness's control API and faults (`POST /__sim/faults`; `model` scopes a fault to a prompt id).
 *
 * Seed files: `<seedDir>/<id>.json` = `{id, versions: [{version, labels, messages, variables, model?}]}`.
 *
 * Control route (no key needed, like `/__sim/*`): `POST /__prompts` with one template version,
 * `{id, version?, labels?, messages, variables?, model?}` (`version` omitted: the next one).
 * Its labels move to it from the prompt's other versions. Versions are immutable: posting an
 * existing version again with the same content only updates its labels (a promotion); with
 * different content it is a 409. Answers 201 with the stored version.
 *
 * Besides stored labels, `latest` always names the highest version.
 */

export const PROMPT_SEED_DIR = fileURLToPath(new URL('../prompts/', import.meta.url));

export function promptServiceSimulator(seedDir: string): SimulatorDefinition {
  const store = loadSeeds(seedDir);
  return {
    name: 'prompt-service',
    routes: [
      {
        method: 'GET',
        path: /^\/v1\/prompts\/(?<id>[^/]+)$/,
        faultable: true,
        handle: (x) => x.send(lookup(store, x)),
      },
      { method: 'POST', path: /^\/__prompts$/, faultable: false, handle: (x) => x.send(add(store, x.body)) },
    ],
    modelOf: ({ params }) => params.id,
    errorFor: (status) => error(status, codeFor(status), `injected ${status}`),
    authenticate(x) {
      if (x.url.pathname === '/__prompts') return undefined;
      const key = /^Bearer (.+)$/.exec(String(x.headers.authorization ?? ''))?.[1];
      if (!key) return error(401, 'unauthorized', 'missing Authorization: Bearer <key>');
      if (/^(bad|invalid)/.test(key)) return error(401, 'unauthorized', 'invalid API key');
      return undefined;
    },
  };
}

type Store = Map<string, PromptTemplate[]>;

function lookup(store: Store, x: SimExchange): SimResponse {
  const id = safeDecode(x.params.id!);
  if (id === undefined) return error(400, 'invalid_request', 'malformed prompt id');
  const versionText = x.url.searchParams.get('version');
  const label = x.url.searchParams.get('label');
  if (versionText !== null && label !== null) return error(400, 'invalid_request', 'give version or label, not both');
  if (versionText !== null && !/^[1-9]\d{0,8}$/.test(versionText))
    return error(400, 'invalid_request', 'version must be a positive integer');
  const versions = store.get(id);
  if (!versions) return error(404, 'not_found', `prompt ${id} not found`);
  if (versionText !== null) {
    const found = versions.find((v) => v.version === Number(versionText));
    return found ? ok(200, found) : error(404, 'not_found', `prompt ${id} has no version ${versionText}`);
  }
  const wanted = label ?? 'production';
  const found = wanted === 'latest' ? versions.at(-1) : versions.find((v) => v.labels.includes(wanted));
  return found ? ok(200, found) : error(404, 'not_found', `prompt ${id} has no version labelled ${wanted}`);
}

function add(store: Store, body: unknown): SimResponse {
  const given = body as { id?: unknown; version?: unknown } | undefined;
  const existing = typeof given?.id === 'string' ? (store.get(given.id) ?? []) : [];
  const version = given?.version ?? (existing.at(-1)?.version ?? 0) + 1;
  const template = parseTemplate({ ...given, version });
  if (!template)
    return error(
      400,
      'invalid_request',
      'expected {id, version?, labels?, messages: [{role, content}], variables?, model?}',
    );
  const same = existing.find((v) => v.version === template.version);
  if (same && content(same) !== content(template))
    return error(409, 'conflict', `prompt ${template.id} version ${template.version} exists with other content`);
  put(store, template);
  return ok(201, template);
}

/** Stores a version; its labels leave the prompt's other versions (a label names one version). */
function put(store: Store, template: PromptTemplate): void {
  const others = (store.get(template.id) ?? [])
    .filter((v) => v.version !== template.version)
    .map((v) => ({ ...v, labels: v.labels.filter((l) => !template.labels.includes(l)) }));
  store.set(
    template.id,
    [...others, template].sort((a, b) => a.version - b.version),
  );
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

const content = (t: PromptTemplate) => JSON.stringify([t.messages, t.variables, t.model]);

/** Seed data is ours: a malformed file fails loudly at start, naming the file. */
function loadSeeds(seedDir: string): Store {
  const store: Store = new Map();
  for (const file of readdirSync(seedDir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const seed = JSON.parse(readFileSync(join(seedDir, file), 'utf8')) as { id?: unknown; versions?: unknown };
    if (seed.id !== file.slice(0, -'.json'.length) || !Array.isArray(seed.versions)) {
      throw new Error(`prompt seed ${file}: expected {id: "${file.slice(0, -5)}", versions: [...]}`);
    }
    for (const entry of seed.versions) {
      const template = parseTemplate({ ...(entry as object), id: seed.id });
      if (!template) throw new Error(`prompt seed ${file}: malformed version ${JSON.stringify(entry).slice(0, 80)}`);
      put(store, template);
    }
  }
  return store;
}

function codeFor(status: number): string {
  const codes: Record<number, string> = {
    400: 'invalid_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    429: 'rate_limited',
  };
  return codes[status] ?? (status >= 500 ? 'unavailable' : 'error');
}

const ok = (status: number, body: unknown): SimResponse => ({ status, body: JSON.stringify(body) });
const error = (status: number, code: string, message: string): SimResponse => ({
  status,
  ...(status === 429 ? { headers: { 'retry-after': '1' } } : {}),
  body: JSON.stringify({ error: { code, message } }),
});

/** The key the local runtime hands the gateway for the simulated service. */
export const PROMPT_SIMULATOR_KEY = 'sim-local-key';

/**
 * The local runtime's default: a simulator unless `PROMPT_SERVICE_URL` points at a real
 * service. `environment` is what to add to the gateway's environment. With `stateDir` it
 * keeps its port across restarts, as the provider simulators do (simulator-ports.ts).
 */
export async function startPromptService(
  env: NodeJS.ProcessEnv,
  seedDir = PROMPT_SEED_DIR,
  stateDir?: string,
): Promise<{ url?: string; environment: Record<string, string>; close(): Promise<void> }> {
  if (env[ENV.promptServiceUrl]) return { environment: {}, close: async () => undefined };
  const sim = await startOnKeptPort('prompts', promptServiceSimulator(seedDir), stateDir);
  return {
    url: sim.url,
    environment: { [ENV.promptServiceUrl]: sim.url, [ENV.promptServiceKey]: PROMPT_SIMULATOR_KEY },
    close: () => sim.close(),
  };
}
