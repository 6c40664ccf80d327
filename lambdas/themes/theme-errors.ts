/** What can go wrong choosing a theme; the HTTP layer alone turns these into statuses. */
export type ThemeErrorKind = 'invalid_request' | 'not_found' | 'upstream_failed';

export class ThemeError extends Error {
  constructor(
    readonly kind: ThemeErrorKind,
    message: string,
    /** The query field at fault, for invalid requests and unknown ids. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ThemeError';
  }
}
