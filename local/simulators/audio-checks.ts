/**
 * The MiniMax fake's request checks for speech and music (docs/upstreams.md §6.2, §6.3): each
 * returns MiniMax's complaint (for a 2013 "invalid params" inside HTTP 200), or undefined when
 * the value is acceptable. Data-driven where MiniMax lists the allowed values.
 */
export type Check = string | undefined;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function oneOf(name: string, value: unknown, allowed: readonly unknown[], required = false): Check {
  if (value === undefined) return required ? `${name} is required` : undefined;
  return allowed.includes(value) ? undefined : `${name} must be one of ${allowed.join(', ')}`;
}

export function text(name: string, value: unknown, min: number, max: number, required = false): Check {
  if (value === undefined) return required ? `${name} is required` : undefined;
  if (typeof value !== 'string') return `${name} must be a string`;
  const length = [...value].length;
  return length < min || length > max ? `${name} length must be in [${min}, ${max}]` : undefined;
}

/** A number in a range; `above` makes the lower bound exclusive (vol is (0, 10]). */
export function range(name: string, value: unknown, min: number, max: number, above = false): Check {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) return `${name} must be a number`;
  const low = above ? value <= min : value < min;
  return low || value > max ? `${name} must be in ${above ? '(' : '['}${min}, ${max}]` : undefined;
}

export function integerRange(name: string, value: unknown, min: number, max: number): Check {
  if (value !== undefined && !Number.isInteger(value)) return `${name} must be an integer`;
  return range(name, value, min, max);
}

export const flag = (name: string, value: unknown): Check =>
  value === undefined || typeof value === 'boolean' ? undefined : `${name} must be a boolean`;

/** The first complaint of a list of checks. */
export const firstProblem = (checks: readonly Check[]): Check => checks.find((check) => check !== undefined);

/**
 * Share of characters no one sees (format and control characters other than line breaks and
 * tabs); MiniMax refuses text where it exceeds 10 % with 1042.
 */
export function invisibleRatio(value: string): number {
  const characters = [...value];
  if (characters.length === 0) return 0;
  const invisible = characters.filter((c) => /[\p{Cf}\p{Cc}]/u.test(c) && !/[\n\r\t]/.test(c)).length;
  return invisible / characters.length;
}

/** A `[sim:name=N]` directive's number in any of the texts, bounded. */
export function directiveNumber(texts: readonly unknown[], name: string, max: number): number | undefined {
  for (const value of texts) {
    if (typeof value !== 'string') continue;
    const match = new RegExp(`\\[sim:${name}=(\\d{1,9})\\]`).exec(value);
    if (match) return Math.min(Number(match[1]), max);
  }
  return undefined;
}
