/**
 * Pure lookups over the family table. The indexes are built once from the data at load.
 */

import { FAMILIES, type ModelFamily } from './families.js';

const byAlias = new Map<string, ModelFamily>();
const byModel = new Map<string, ModelFamily>();
for (const f of FAMILIES) {
  for (const a of [f.alias, ...f.aliases]) byAlias.set(a.toLowerCase(), f);
  byModel.set(f.defaultModel, f);
  for (const r of f.routes) byModel.set(r.model, f);
}

/**
 * The family named by `nameOrAlias`: a concrete model id from the family's routes (exact,
 * case-sensitive), or the family alias or one of its extra aliases (case-insensitive).
 * Surrounding whitespace is ignored. Unknown names give `undefined`.
 */
export function resolveFamily(nameOrAlias: string): ModelFamily | undefined {
  const name = nameOrAlias.trim();
  return byModel.get(name) ?? byAlias.get(name.toLowerCase());
}

/** All nine families in catalog order. */
export function listFamilies(): readonly ModelFamily[] {
  return FAMILIES;
}

/** Aliases of the fight-capable families in catalog order (the default fight line-up). */
export function fightCapableAliases(): readonly string[] {
  return FAMILIES.filter((f) => f.fightCapable).map((f) => f.alias);
}
