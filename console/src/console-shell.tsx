/**
 * The page frame: who is signed in, the navigation, and the page the path names. Signed out (or
 * once the session expires, which any session route's 401 reveals) it shows the sign-in form.
 */
import type { TargetedMouseEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AccountPage } from './account-page';
import { ArenaPage } from './arena-page';
import { callApi, onSessionExpired } from './console-http';
import { navigate, PAGES, useLocation } from './console-router';
import { forgetArenaKey } from './arena-key';
import { KeysPage } from './keys-page';
import { RequestsPage } from './requests-page';
import { SignInForm, type SignedIn } from './sign-in-form';
import { UsagePage } from './usage-page';

export function ConsoleShell() {
  const [session, setSession] = useState<SignedIn | null | undefined>(undefined);
  const [notice, setNotice] = useState<string>('');
  const where = useLocation();

  useEffect(() => {
    callApi<SignedIn>('GET', '/api/v1/auth/session', { quietUnauthorized: true }).then(setSession, () =>
      setSession(null),
    );
    return onSessionExpired(() => {
      setSession((current) => {
        if (current) setNotice('Your session expired or was ended. Sign in again.');
        return null;
      });
    });
  }, []);

  useEffect(() => {
    const title = PAGES.find((p) => p.page === where.page)?.title ?? 'Console';
    document.title = session ? `${title} · AI gateway console` : 'Sign in · AI gateway console';
  }, [where.page, session]);

  if (session === undefined)
    return (
      <main id="main" class="loading" aria-busy="true">
        Loading…
      </main>
    );

  if (session === null)
    return (
      <main id="main" class="narrow">
        <h1>AI gateway console</h1>
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <SignInForm
          onSignedIn={(signedIn) => {
            setNotice('');
            setSession(signedIn);
          }}
        />
      </main>
    );

  const signOut = async () => {
    await forgetArenaKey(session.accountId);
    await callApi('POST', '/api/v1/auth/logout', { quietUnauthorized: true }).catch(() => undefined);
    setNotice('Signed out.');
    setSession(null);
  };

  const link = (page: string, title: string) => (
    <a
      href={`/${page}`}
      aria-current={where.page === page ? 'page' : undefined}
      onClick={(event: TargetedMouseEvent<HTMLAnchorElement>) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        navigate(`/${page}`);
      }}
    >
      {title}
    </a>
  );

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">AI gateway</span>
        <nav aria-label="Console">
          <ul>
            {PAGES.map(({ page, title }) => (
              <li key={page}>{link(page, title)}</li>
            ))}
          </ul>
        </nav>
        <span class="who">
          <span class="email">{session.email}</span>
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {where.page === 'keys' && <KeysPage />}
        {where.page === 'usage' && <UsagePage />}
        {where.page === 'requests' && <RequestsPage />}
        {where.page === 'arena' && <ArenaPage accountId={session.accountId} sessionPath={where.rest} />}
        {where.page === 'account' && <AccountPage />}
      </main>
    </>
  );
}
