import { resolveFamily, type ModelFamily, type ProviderId } from '../catalog/model-catalog.js';
import { invalidRequest } from './chat-errors.js';
import type { GatewayChatRequest } from './chat-request.js';
import type { LoadBalancer } from './load-balancer.js';

/** One place an attempt can go: a provider's model, and which requested model it serves. */
export interface Target {
  readonly provider: ProviderId;
  readonly model: string;
  readonly family: ModelFamily;
  /** The model name the caller asked for that led here (the model, a fallback or a target). */
  readonly requested: string;
}

export const targetKey = (target: Pick<Target, 'provider' | 'model'>) => `${target.provider}:${target.model}`;

/**
 * The attempt order for a request:
 * 1. the primary: `model`, or with `load_balance` its targets in the strategy's order
 *    (then `model` itself, if not among them);
 * 2. the body's `fallback` models, in order;
 * 3. the catalog's other routes for each of those families, in the same order.
 * A name may be a family alias or a concrete route model id (which pins that route first).
 * Duplicates are dropped; unknown names are a 400 naming the field.
 */
export function planTargets(request: GatewayChatRequest, balancer: LoadBalancer): Target[] {
  const primary = resolve(request.model, 'model');
  const balanced = request.load_balance
    ? balancer
        .order(
          request.load_balance.strategy,
          request.load_balance.targets.map((t, i) => ({
            ...resolve(t.model, `load_balance.targets[${i}].model`),
            weight: t.weight ?? 1,
          })),
        )
        .map(({ weight: _weight, ...rest }) => rest)
    : [];
  const fallbacks = (request.fallback ?? []).map((name, i) => resolve(name, `fallback[${i}]`));
  const chosen = [...balanced, primary, ...fallbacks];
  const families = [...new Map(chosen.map((t) => [t.family.alias, t])).values()];
  const routes = families.flatMap((t) =>
    t.family.routes.map((route) => ({ ...route, family: t.family, requested: t.requested })),
  );
  const seen = new Set<string>();
  return [...chosen, ...routes].filter((target) => {
    const key = targetKey(target);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function resolve(name: string, field: string): Target & { key: string } {
  const family = resolveFamily(name);
  if (!family) throw invalidRequest(field, `${field}: unknown model "${name}"; GET /api/v1/models lists them`);
  const route = family.routes.find((r) => r.model === name) ?? family.routes[0]!;
  return { provider: route.provider, model: route.model, family, requested: name, key: targetKey(route) };
}
