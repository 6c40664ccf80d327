/**
 * Bounds on parsed caller JSON, checked without recursion: `JSON.parse` accepts any nesting,
 * but every recursive walk after it (validation, canonical JSON, provider translation,
 * `JSON.stringify`) would overflow the stack on a deep enough value. JSON has no Infinity, so
 * a non-finite number is one that overflowed (`1e309`), which `JSON.stringify` would forward
 * as `null`.
 */
export interface JsonLimits {
  readonly maxDepth: number;
  /** Every value counts: objects, arrays, keys' values, array items, scalars. */
  readonly maxNodes?: number;
}

export type JsonViolation =
  | { readonly kind: 'depth'; readonly path: readonly PathSegment[] }
  | { readonly kind: 'nodes'; readonly path: readonly PathSegment[] }
  | { readonly kind: 'number'; readonly path: readonly PathSegment[] };

export type PathSegment = string | number;

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: PathSegment | undefined;
}

/**
 * The first violation in document order, or undefined. Depth counts nested objects and arrays:
 * `{"a": [1]}` is 2 deep, a scalar 0. Every request body and checked answer passes through
 * here, so the common case (no violation) is a lean walk that allocates nothing per value; the
 * walk that can name the violation's path runs only when there is one.
 */
export function findJsonViolation(root: unknown, limits: JsonLimits): JsonViolation | undefined {
  return violates(root, limits) ? locateViolation(root, limits) : undefined;
}

function violates(root: unknown, limits: JsonLimits): boolean {
  const maxNodes = limits.maxNodes ?? Infinity;
  const values: unknown[] = [root];
  const depths: number[] = [0];
  let nodes = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (++nodes > maxNodes) return true;
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'number' && !Number.isFinite(value)) return true;
      continue;
    }
    if (depth >= limits.maxDepth) return true;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        values.push(value[i]);
        depths.push(depth + 1);
      }
    } else {
      for (const key of Object.keys(value)) {
        values.push((value as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

function locateViolation(root: unknown, limits: JsonLimits): JsonViolation | undefined {
  const stack: Frame[] = [{ value: root, depth: 0, parent: undefined, key: undefined }];
  let nodes = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    nodes += 1;
    if (limits.maxNodes !== undefined && nodes > limits.maxNodes) return { kind: 'nodes', path: [] };
    const { value } = frame;
    if (typeof value === 'number' && !Number.isFinite(value)) return { kind: 'number', path: pathOf(frame) };
    if (value === null || typeof value !== 'object') continue;
    if (frame.depth >= limits.maxDepth) return { kind: 'depth', path: pathOf(frame) };
    const children = Array.isArray(value)
      ? value.map((item, index) => [index, item] as const)
      : Object.entries(value as Record<string, unknown>);
    // Reversed so that the first child is popped first (document order).
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, child] = children[i]!;
      stack.push({ value: child, depth: frame.depth + 1, parent: frame, key });
    }
  }
  return undefined;
}

function pathOf(frame: Frame): PathSegment[] {
  const path: PathSegment[] = [];
  for (let at: Frame | undefined = frame; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}
