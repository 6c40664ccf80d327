import {
  FAMILIES,
  PRICES,
  PROVIDERS,
  PROVIDER_IDS,
  KEYED_PROVIDER_IDS,
  apiKeyEnvVar,
  baseUrlEnvVar,
  costMicroUsd,
  fightCapableAliases,
  isProviderId,
  listFamilies,
  priceOf,
  resolveFamily,
} from '../../../lambdas/catalog/model-catalog.js';

const VENDORS = ['openai', 'anthropic', 'google', 'xai'] as const;

describe('providers', () => {
  test('six providers: four vendors, one aggregator, and Bedrock, which has no key', () => {
    expect([...PROVIDER_IDS]).toEqual(['openai', 'anthropic', 'google', 'xai', 'openrouter', 'bedrock']);
    for (const id of PROVIDER_IDS) expect(PROVIDERS[id].id).toBe(id);
    expect(PROVIDER_IDS.filter((id) => PROVIDERS[id].kind === 'vendor')).toEqual([...VENDORS]);
    expect(PROVIDERS.openrouter.kind).toBe('aggregator');
    expect(PROVIDERS.bedrock).toMatchObject({ kind: 'cloud', wireFormat: 'bedrock-converse', credential: 'aws-role' });
    expect(KEYED_PROVIDER_IDS).toEqual(['openai', 'anthropic', 'google', 'xai', 'openrouter']);
  });

  test('wire formats, base URLs and env names', () => {
    expect(PROVIDERS.openai.wireFormat).toBe('openai-compatible');
    expect(PROVIDERS.xai.wireFormat).toBe('openai-compatible');
    expect(PROVIDERS.openrouter.wireFormat).toBe('openai-compatible');
    expect(PROVIDERS.anthropic.wireFormat).toBe('anthropic');
    expect(PROVIDERS.google.wireFormat).toBe('gemini');
    expect(PROVIDERS.openai.defaultBaseUrl).toBe('https://api.openai.com/v1');
    expect(PROVIDERS.anthropic.defaultBaseUrl).toBe('https://api.anthropic.com');
    expect(PROVIDERS.google.defaultBaseUrl).toBe('https://generativelanguage.googleapis.com/v1beta');
    expect(PROVIDERS.xai.defaultBaseUrl).toBe('https://api.x.ai/v1');
    expect(PROVIDERS.openrouter.defaultBaseUrl).toBe('https://openrouter.ai/api/v1');
    expect(PROVIDER_IDS.map(baseUrlEnvVar)).toEqual([
      'OPENAI_BASE_URL',
      'ANTHROPIC_BASE_URL',
      'GOOGLE_BASE_URL',
      'XAI_BASE_URL',
      'OPENROUTER_BASE_URL',
      'BEDROCK_BASE_URL',
    ]);
    expect(apiKeyEnvVar('google')).toBe('GOOGLE_API_KEY');
  });

  test('isProviderId', () => {
    for (const id of PROVIDER_IDS) expect(isProviderId(id)).toBe(true);
    for (const v of ['OpenAI', 'gemini', 'x-ai', '', 'toString', undefined, null, 1, {}])
      expect(isProviderId(v)).toBe(false);
  });
});

describe('families', () => {
  test('ten families, eight fight-capable', () => {
    expect(FAMILIES).toHaveLength(10);
    expect(listFamilies()).toBe(FAMILIES);
    expect(FAMILIES.filter((f) => f.fightCapable)).toHaveLength(8);
    expect(fightCapableAliases()).toEqual(['gpt', 'claude', 'gemini', 'grok', 'deepseek', 'qwen', 'mistral', 'kimi']);
  });

  test('aliases are lowercase and no name points at two families', () => {
    const owner = new Map<string, string>();
    for (const f of FAMILIES) {
      const names = new Set([f.alias, ...f.aliases].map((a) => a.toLowerCase()));
      for (const r of f.routes) names.add(r.model);
      names.add(f.defaultModel);
      for (const name of names) {
        expect(owner.get(name) ?? f.alias).toBe(f.alias);
        owner.set(name, f.alias);
      }
      for (const a of [f.alias, ...f.aliases]) {
        expect(a).toBe(a.toLowerCase());
        expect(a).toMatch(/^[a-z0-9][a-z0-9.-]*$/);
      }
      // model ids are matched case-sensitively, aliases case-insensitively: keep them apart
      for (const r of f.routes) expect(FAMILIES.some((g) => g !== f && g.alias === r.model.toLowerCase())).toBe(false);
    }
  });

  test('routes: known providers, vendor first then openrouter, default is the first route', () => {
    for (const f of FAMILIES) {
      expect(f.routes.length).toBeGreaterThanOrEqual(1);
      for (const r of f.routes) {
        expect(isProviderId(r.provider)).toBe(true);
        expect(r.model.length).toBeGreaterThan(0);
      }
      expect(f.defaultModel).toBe(f.routes[0]!.model);
      const providers = f.routes.map((r) => r.provider);
      expect(new Set(providers).size).toBe(providers.length);
      const vendor = VENDORS.find((v) => providers.includes(v));
      if (vendor) expect(providers.slice(0, 2)).toEqual([vendor, 'openrouter']);
      else if (f.owner === 'amazon') expect(providers).toEqual(['bedrock']);
      else expect(providers).toEqual(['openrouter']);
      // Bedrock, where a family has it, is the last resort: the deployment's own account.
      if (providers.includes('bedrock')) expect(providers.at(-1)).toBe('bedrock');
      for (const r of f.routes) if (r.provider === 'openrouter') expect(r.model).toMatch(/^[a-z0-9-]+\/[a-z0-9.-]+$/);
    }
    const vendorFamilies = FAMILIES.filter((f) => !['openrouter', 'bedrock'].includes(f.routes[0]!.provider)).map(
      (f) => f.routes[0]!.provider,
    );
    expect(vendorFamilies.sort()).toEqual([...VENDORS].sort());
  });

  test('other fields are filled in', () => {
    for (const f of FAMILIES) {
      expect(f.name.length).toBeGreaterThan(0);
      expect(f.owner).toMatch(/^[a-z0-9-]+$/);
      expect(Number.isInteger(f.created) && f.created > 1_700_000_000).toBe(true);
      expect(typeof f.vision).toBe('boolean');
    }
    expect(FAMILIES.filter((f) => !f.fightCapable).map((f) => f.alias)).toEqual(['llama', 'nova']);
  });

  test('the data is frozen', () => {
    expect(Object.isFrozen(FAMILIES)).toBe(true);
    for (const f of FAMILIES) {
      expect(Object.isFrozen(f) && Object.isFrozen(f.routes) && Object.isFrozen(f.aliases)).toBe(true);
    }
    expect(Object.isFrozen(PROVIDERS) && Object.isFrozen(PRICES)).toBe(true);
  });
});

describe('prices', () => {
  test('every routed model has a price with integer, non-negative rates', () => {
    for (const f of FAMILIES) {
      for (const r of f.routes) {
        const p = priceOf(r.model);
        expect(p).toBeDefined();
        const rates = [p!.cachedInputPerMTok, p!.cacheWritePerMTok, p!.cacheWrite1hPerMTok];
        for (const v of [p!.inputPerMTok, p!.outputPerMTok, ...rates.map((rate) => rate ?? 0)]) {
          expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
        }
        if (p!.cachedInputPerMTok !== undefined) expect(p!.cachedInputPerMTok).toBeLessThanOrEqual(p!.inputPerMTok);
        // A cache write costs at least an uncached token, and the 1-hour one at least the 5-minute one.
        if (p!.cacheWritePerMTok !== undefined) expect(p!.cacheWritePerMTok).toBeGreaterThanOrEqual(p!.inputPerMTok);
        if (p!.cacheWrite1hPerMTok !== undefined)
          expect(p!.cacheWrite1hPerMTok).toBeGreaterThanOrEqual(p!.cacheWritePerMTok ?? p!.inputPerMTok);
      }
    }
  });

  test('exact integer costs', () => {
    // 1000 x $1.25/M + 500 x $10/M = $0.00625
    expect(costMicroUsd('gpt-5', { promptTokens: 1000, completionTokens: 500 })).toEqual({
      microUsd: 6250,
      priced: true,
    });
    expect(costMicroUsd('openai/gpt-5', { promptTokens: 1_000_000, completionTokens: 1_000_000 }).microUsd).toBe(
      11_250_000,
    );
    expect(costMicroUsd('claude-sonnet-4-5', { promptTokens: 2000, completionTokens: 1000 }).microUsd).toBe(21_000);
    expect(costMicroUsd('gpt-5', { promptTokens: 0, completionTokens: 0 })).toEqual({ microUsd: 0, priced: true });
  });

  test('cached tokens are part of the prompt and billed at the cached rate', () => {
    // 2000 x 1.25 + 8000 x 0.125 = 2500 + 1000
    expect(costMicroUsd('gpt-5', { promptTokens: 10_000, completionTokens: 0, cachedTokens: 8000 }).microUsd).toBe(
      3500,
    );
    // no cached rate: cached tokens cost the input rate
    expect(
      costMicroUsd('qwen/qwen3-235b-a22b-2507', { promptTokens: 1000, completionTokens: 0, cachedTokens: 1000 })
        .microUsd,
    ).toBe(130);
    // cached tokens beyond the prompt are clamped: 100 x 0.125 = 12.5 -> 13
    expect(costMicroUsd('gpt-5', { promptTokens: 100, completionTokens: 0, cachedTokens: 500 }).microUsd).toBe(13);
  });

  test("Anthropic's cache reads cost 0.1x input, 5-minute writes 1.25x, 1-hour writes 2x", () => {
    // The list prices of Claude Sonnet 4.5, per token in micro-USD: input 3, reads 0.3,
    // 5-minute writes 3.75, 1-hour writes 6, output 15.
    const usage = {
      promptTokens: 10_000, // 1000 uncached + 5000 read + 3000 written for 5 min + 1000 for 1 h
      cachedTokens: 5000,
      cacheWriteTokens: 4000,
      cacheWrite1hTokens: 1000,
      completionTokens: 2000,
      reasoningTokens: 1500, // part of the completion: not priced again
    };
    const expected = 1000 * 3 + 5000 * 0.3 + 3000 * 3.75 + 1000 * 6 + 2000 * 15;
    expect(expected).toBe(51_750);
    expect(costMicroUsd('claude-sonnet-4-5', usage)).toEqual({ microUsd: expected, priced: true });
    expect(costMicroUsd('anthropic/claude-sonnet-4.5', usage).microUsd).toBe(expected);
    // Without the 1-hour part every write is a 5-minute one.
    expect(costMicroUsd('claude-sonnet-4-5', { ...usage, cacheWrite1hTokens: undefined }).microUsd).toBe(
      1000 * 3 + 5000 * 0.3 + 4000 * 3.75 + 2000 * 15,
    );
  });

  test('implicit caches have no write premium: a write costs an input token', () => {
    const written = { promptTokens: 1000, completionTokens: 0, cacheWriteTokens: 600, cacheWrite1hTokens: 100 };
    expect(costMicroUsd('gpt-5', written).microUsd).toBe(1250); // 1000 x 1.25
    expect(costMicroUsd('gemini-2.5-pro', written).microUsd).toBe(1250);
    expect(costMicroUsd('deepseek/deepseek-v3.2', written).microUsd).toBe(280); // 1000 x 0.28
  });

  test('the parts of a prompt never add up to more than the prompt', () => {
    // 100 prompt tokens: 60 read (0.3 each), the 40 left written for 1 hour (6 each); the rest of
    // the claimed writes and the 1-hour part beyond the writes are clamped away.
    expect(
      costMicroUsd('claude-sonnet-4-5', {
        promptTokens: 100,
        completionTokens: 0,
        cachedTokens: 60,
        cacheWriteTokens: 500,
        cacheWrite1hTokens: 900,
      }).microUsd,
    ).toBe(60 * 0.3 + 40 * 6);
    expect(
      costMicroUsd('claude-sonnet-4-5', {
        promptTokens: 100,
        completionTokens: 0,
        cacheWriteTokens: -5,
        cacheWrite1hTokens: Number.NaN,
      }).microUsd,
    ).toBe(300);
  });

  test('rounds half up', () => {
    expect(costMicroUsd('gpt-5', { promptTokens: 1, completionTokens: 0 }).microUsd).toBe(1); // 1.25
    expect(costMicroUsd('gpt-5', { promptTokens: 2, completionTokens: 0 }).microUsd).toBe(3); // 2.5
    expect(costMicroUsd('gpt-5', { promptTokens: 3, completionTokens: 0 }).microUsd).toBe(4); // 3.75
    expect(costMicroUsd('meta-llama/llama-4-scout', { promptTokens: 6, completionTokens: 0 }).microUsd).toBe(0); // 0.48
    expect(costMicroUsd('meta-llama/llama-4-scout', { promptTokens: 0, completionTokens: 5 }).microUsd).toBe(2); // 1.5
    expect(costMicroUsd('meta-llama/llama-4-scout', { promptTokens: 25, completionTokens: 5 }).microUsd).toBe(4); // 2 + 1.5 = 3.5
  });

  test('stays exact beyond 2^53 intermediate values', () => {
    // 1e9 x $15/M = $15,000 = 15e9 micro-USD (intermediate 1.5e16)
    expect(costMicroUsd('claude-sonnet-4-5', { promptTokens: 0, completionTokens: 1_000_000_000 }).microUsd).toBe(
      15_000_000_000,
    );
  });

  test('never negative; bad counts count as zero', () => {
    expect(costMicroUsd('gpt-5', { promptTokens: -5, completionTokens: -1, cachedTokens: -3 })).toEqual({
      microUsd: 0,
      priced: true,
    });
    expect(costMicroUsd('gpt-5', { promptTokens: Number.NaN, completionTokens: Infinity }).microUsd).toBe(0);
    expect(costMicroUsd('gpt-5', { promptTokens: 2.9, completionTokens: 0 }).microUsd).toBe(3); // floor(2.9) = 2 tokens -> 2.5 -> 3
  });

  test('unknown models are flagged, dated snapshots are priced', () => {
    expect(costMicroUsd('gpt-9', { promptTokens: 1000, completionTokens: 1000 })).toEqual({
      microUsd: 0,
      priced: false,
    });
    expect(costMicroUsd('toString', { promptTokens: 1000, completionTokens: 1000 }).priced).toBe(false);
    expect(priceOf('gpt-5-2025-08-07')).toBe(PRICES['gpt-5']);
    expect(priceOf('claude-sonnet-4-5-20250929')).toBe(PRICES['claude-sonnet-4-5']);
    expect(priceOf('gpt-5-mini')).toBeUndefined();
    expect(costMicroUsd('gpt-5-2025-08-07', { promptTokens: 1000, completionTokens: 500 })).toEqual({
      microUsd: 6250,
      priced: true,
    });
  });
});

describe('resolveFamily', () => {
  test('by alias, case-insensitive', () => {
    expect(resolveFamily('gpt')?.alias).toBe('gpt');
    expect(resolveFamily('Claude')?.alias).toBe('claude');
    expect(resolveFamily('  GROK ')?.alias).toBe('grok');
    for (const f of FAMILIES) expect(resolveFamily(f.alias)).toBe(f);
  });

  test('by extra alias', () => {
    expect(resolveFamily('sonnet')?.alias).toBe('claude');
    expect(resolveFamily('ChatGPT')?.alias).toBe('gpt');
    for (const f of FAMILIES) for (const a of f.aliases) expect(resolveFamily(a)).toBe(f);
  });

  test('by concrete model id, exact', () => {
    expect(resolveFamily('gpt-5')?.alias).toBe('gpt');
    expect(resolveFamily('openai/gpt-5')?.alias).toBe('gpt');
    expect(resolveFamily('anthropic/claude-sonnet-4.5')?.alias).toBe('claude');
    expect(resolveFamily('meta-llama/llama-4-scout')?.alias).toBe('llama');
    for (const f of FAMILIES) for (const r of f.routes) expect(resolveFamily(r.model)).toBe(f);
    expect(resolveFamily('OpenAI/GPT-5')).toBeUndefined();
  });

  test('unknown names', () => {
    for (const name of ['', 'gpt-9', 'openai', 'toString', '__proto__', 'gpt,claude'])
      expect(resolveFamily(name)).toBeUndefined();
  });
});
