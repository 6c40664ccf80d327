/**
 * Client-side paths: the server answers index.html for every path outside /api/ (the local
 * runtime's console-files.ts, CloudFront's error page in the cloud), and this maps them to pages.
 */
import { useEffect, useState } from 'preact/hooks';

export type Page = 'keys' | 'usage' | 'requests' | 'arena' | 'account';
export const PAGES: readonly { page: Page; title: string }[] = [
  { page: 'keys', title: 'Keys' },
  { page: 'usage', title: 'Usage' },
  { page: 'requests', title: 'Requests' },
  { page: 'arena', title: 'Arena' },
  { page: 'account', title: 'Account' },
];

export interface Location {
  readonly page: Page;
  /** The rest of the path after the page, e.g. a session id under /arena/. */
  readonly rest: string;
}

export function parseLocation(pathname: string): Location {
  const [, first = '', ...rest] = pathname.split('/');
  const known = PAGES.find((p) => p.page === first);
  return { page: known?.page ?? 'keys', rest: known ? rest.join('/') : '' };
}

export function navigate(path: string): void {
  if (path === location.pathname) return;
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useLocation(): Location {
  const [current, setCurrent] = useState(() => parseLocation(location.pathname));
  useEffect(() => {
    const update = () => setCurrent(parseLocation(location.pathname));
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return current;
}
