import type { Template } from 'aws-cdk-lib/assertions';

/**
 * Reads Glue table definitions from a synthesized template, and reads JSON lines the way the
 * OpenX JSON SerDe (org.openx.data.jsonserde.JsonSerDe) does for such a table: top-level and
 * struct field names match case-insensitively, a missing field is null, fields the table does
 * not declare are ignored, and a value must fit its declared Hive type.
 */
export interface GlueColumn {
  readonly Name: string;
  readonly Type: string;
}

export type HiveType =
  | { readonly kind: 'primitive'; readonly name: string }
  | { readonly kind: 'struct'; readonly fields: ReadonlyMap<string, HiveType> };

export function glueTable(template: Template, name: string): any {
  const tables = Object.values(template.findResources('AWS::Glue::Table')).map((t) => t.Properties.TableInput);
  const found = tables.find((table) => table.Name === name);
  if (!found) throw new Error(`no Glue table ${name}`);
  return found;
}

export const glueColumns = (template: Template, name: string): GlueColumn[] =>
  glueTable(template, name).StorageDescriptor.Columns;

/** Parses a Hive type string: primitives and (nested) structs, which is all the export tables use. */
export function parseHiveType(text: string): HiveType {
  let at = 0;
  const word = () => {
    const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at));
    if (!match) throw new Error(`Hive type: expected a name at ${at} in ${text}`);
    at += match[0].length;
    return match[0];
  };
  const expect = (char: string) => {
    if (text[at] !== char) throw new Error(`Hive type: expected ${char} at ${at} in ${text}`);
    at += 1;
  };
  const type = (): HiveType => {
    const name = word().toLowerCase();
    if (name !== 'struct') return { kind: 'primitive', name };
    expect('<');
    const fields = new Map<string, HiveType>();
    for (;;) {
      const field = word();
      expect(':');
      fields.set(field.toLowerCase(), type());
      if (text[at] === '>') break;
      expect(',');
    }
    expect('>');
    return { kind: 'struct', fields };
  };
  const parsed = type();
  if (at !== text.length) throw new Error(`Hive type: trailing text at ${at} in ${text}`);
  return parsed;
}

/** Whether a dotted path (`newimage.costmicrousd.n`) names a column and fields the table declares. */
export function resolvesColumnPath(columns: readonly GlueColumn[], path: string): boolean {
  const [root, ...fields] = path.toLowerCase().split('.');
  const column = columns.find((c) => c.Name.toLowerCase() === root);
  if (!column) return false;
  let type = parseHiveType(column.Type);
  for (const field of fields) {
    if (type.kind !== 'struct' || !type.fields.has(field)) return false;
    type = type.fields.get(field)!;
  }
  return true;
}

export interface SerdeRead {
  /** Each column's value as Athena would see it (null when missing). */
  readonly row: Record<string, unknown>;
  /** Values that do not fit their declared type: the query would fail on them. */
  readonly mismatches: string[];
  /** JSON fields (at any depth) the table does not declare: their data would be invisible to queries. */
  readonly undeclared: string[];
}

export function readLikeOpenXSerde(columns: readonly GlueColumn[], line: string): SerdeRead {
  const json = JSON.parse(line) as Record<string, unknown>;
  const mismatches: string[] = [];
  const undeclared: string[] = [];
  const struct = { kind: 'struct', fields: new Map(columns.map((c) => [c.Name.toLowerCase(), parseHiveType(c.Type)])) };
  const row = read(struct as HiveType, json, '', mismatches, undeclared) as Record<string, unknown>;
  return { row, mismatches, undeclared };
}

function read(type: HiveType, value: unknown, path: string, mismatches: string[], undeclared: string[]): unknown {
  if (value === undefined || value === null) return null;
  if (type.kind === 'primitive') {
    if (!fits(type.name, value)) mismatches.push(`${path}: ${JSON.stringify(value)} is not a ${type.name}`);
    return value;
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    mismatches.push(`${path}: ${JSON.stringify(value)} is not a struct`);
    return null;
  }
  const byLowerName = new Map(Object.entries(value).map(([key, field]) => [key.toLowerCase(), [key, field] as const]));
  for (const [lower, [key]] of byLowerName) if (!type.fields.has(lower)) undeclared.push(`${path}${key}`);
  const out: Record<string, unknown> = {};
  for (const [name, fieldType] of type.fields) {
    out[name] = read(fieldType, byLowerName.get(name)?.[1], `${path}${name}.`, mismatches, undeclared);
  }
  return out;
}

function fits(hiveType: string, value: unknown): boolean {
  switch (hiveType) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'bigint':
    case 'int':
      return Number.isInteger(value);
    case 'double':
      return typeof value === 'number';
    default:
      throw new Error(`the reader does not know Hive type ${hiveType}`);
  }
}
