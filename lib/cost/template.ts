/**
 * The parts of a synthesized CloudFormation template the cost model reads, and the ways it
 * finds resources in one: by type, by CDK logical id (`<construct path><8 hex digits>`), and
 * by the logical ids a property refers to (`Ref`, `Fn::GetAtt`).
 */

export interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

export interface Template {
  readonly Resources: Record<string, Resource>;
}

export function ofType(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

/** The one resource whose logical id matches; `what` names it in the error when there is none. */
export function resourceById(template: Template, id: RegExp, what: string): [string, Resource] {
  const found = Object.entries(template.Resources).find(([logicalId]) => id.test(logicalId));
  if (!found) throw new Error(`the template has no ${what}`);
  return found;
}

/** Every logical id a property value refers to, through `Ref` and `Fn::GetAtt`, in order. */
export function referencedIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencedIds);
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  if (typeof object['Ref'] === 'string') return [object['Ref']];
  const getAtt = object['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return [getAtt[0]];
  return Object.values(object).flatMap(referencedIds);
}

/** A property's number, or undefined when the template leaves it out (or computes it). */
export function numberProperty(resource: Resource, ...path: string[]): number | undefined {
  let value: unknown = resource.Properties;
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'number' ? value : undefined;
}
