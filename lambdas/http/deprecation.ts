/**
 * What a deprecated route says on every answer, errors included: `Deprecation` (RFC 9745:
 * `@<unix seconds>`, when it was deprecated), `Sunset` (RFC 8594: the HTTP-date it stops
 * answering, only when one has been set) and `Link` (RFC 8288) to the routes that replace it
 * and to where its deprecation is described.
 */
export interface Deprecation {
  readonly deprecatedAtMs: number;
  readonly sunsetAtMs?: number;
  /**
   * URI references, resolved by the client against the request's URL: relative ones keep a
   * stage or base path (`/prod/api/chat` → `/prod/api/v1/...`) that the function cannot see.
   */
  readonly successors: readonly { readonly href: string; readonly title: string }[];
  readonly documentation: string;
}

export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  const links = [
    ...deprecation.successors.map(({ href, title }) => `<${href}>; rel="successor-version"; title="${title}"`),
    `<${deprecation.documentation}>; rel="deprecation"`,
  ];
  return {
    Deprecation: `@${Math.floor(deprecation.deprecatedAtMs / 1000)}`,
    ...(deprecation.sunsetAtMs === undefined ? {} : { Sunset: new Date(deprecation.sunsetAtMs).toUTCString() }),
    Link: links.join(', '),
  };
}
