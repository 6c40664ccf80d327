/**
 * Does a schema apply itself to the same value without end? `{"anyOf": [{"$ref": "#"}]}` does:
 * validating anything recurses until the stack runs out, which takes long enough to stall the
 * event loop. A cycle through `properties` or `items` is fine (each step consumes a level of
 * the value), so only the keywords that apply a subschema to the same value are followed, and
 * local `$ref`s (`#`, `#/$defs/x`) are resolved.
 */
const SAME_VALUE_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SAME_VALUE_SINGLES = ['not', 'if', 'then', 'else'];
const SAME_VALUE_MAPS = ['dependentSchemas'];
const REFERENCES = ['$ref', '$dynamicRef', '$recursiveRef'];

type SchemaNode = Record<string, unknown>;

export function hasSelfApplyingCycle(root: SchemaNode): boolean {
  const done = new Set<SchemaNode>();
  const onPath = new Set<SchemaNode>();
  const visit = (node: SchemaNode): boolean => {
    if (onPath.has(node)) return true;
    if (done.has(node)) return false;
    onPath.add(node);
    const cyclic = sameValueSubschemas(node, root).some(visit);
    onPath.delete(node);
    done.add(node);
    return cyclic;
  };
  return allObjects(root).some(visit);
}

function sameValueSubschemas(node: SchemaNode, root: SchemaNode): SchemaNode[] {
  const found: unknown[] = [];
  for (const key of SAME_VALUE_LISTS) if (Array.isArray(node[key])) found.push(...(node[key] as unknown[]));
  for (const key of SAME_VALUE_SINGLES) found.push(node[key]);
  for (const key of SAME_VALUE_MAPS) if (isNode(node[key])) found.push(...Object.values(node[key]));
  for (const key of REFERENCES) if (typeof node[key] === 'string') found.push(resolveLocal(root, node[key]));
  return found.filter(isNode);
}

/** `#/$defs/a~1b` → root.$defs['a/b']; anything but a local JSON pointer → undefined. */
function resolveLocal(root: SchemaNode, ref: string): unknown {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref
    .slice(2)
    .split('/')
    .filter((part) => part !== '')) {
    const part = safeDecode(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  }
  return at;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function allObjects(root: SchemaNode): SchemaNode[] {
  const found: SchemaNode[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (!Array.isArray(value)) found.push(value as SchemaNode);
    stack.push(...Object.values(value));
  }
  return found;
}

const isNode = (value: unknown): value is SchemaNode =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
