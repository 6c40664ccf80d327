import type { RouteSpec } from '../lib/routes.js';

/** Matches request paths against the manifest's templates, as API Gateway's resources do. */
export interface RouteMatch {
  readonly route: RouteSpec;
  readonly pathParams: Record<string, string>;
}

export class RouteTable {
  private readonly compiled: { route: RouteSpec; pattern: RegExp; names: string[] }[];

  constructor(routes: readonly RouteSpec[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.path
        .split('/')
        .map((part) => {
          const param = /^\{(\w+)(\+?)\}$/.exec(part);
          if (!param) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(param[1]!);
          // `{name+}` is API Gateway's greedy parameter: the rest of the path, slashes and all.
          return param[2] ? '(.+?)' : '([^/]+)';
        })
        .join('/');
      return { route, pattern: new RegExp(`^${source}/?$`), names };
    });
  }

  /** The route for a method and path; `methodMismatch` when only the path is known. */
  match(method: string, path: string): RouteMatch | 'methodMismatch' | undefined {
    let pathKnown = false;
    for (const { route, pattern, names } of this.compiled) {
      const found = pattern.exec(path);
      if (!found) continue;
      pathKnown = true;
      if (route.method !== method) continue;
      const pathParams: Record<string, string> = {};
      names.forEach((name, i) => (pathParams[name] = safeDecode(found[i + 1]!)));
      return { route, pathParams };
    }
    return pathKnown ? 'methodMismatch' : undefined;
  }

  /** Every route at the resource a path names, whatever its method (what a preflight asks about). */
  routesAt(path: string): RouteSpec[] {
    return this.compiled.filter(({ pattern }) => pattern.test(path)).map(({ route }) => route);
  }
}

/** API Gateway passes a malformed escape through as it is; so do we (never a 5xx). */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
