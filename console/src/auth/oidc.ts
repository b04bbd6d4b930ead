// The OpenID Connect sign-in through oidc-client-ts (loaded with the sign-in and callback pages only, so the
// first page's bundle does not carry it): authorization code with PKCE (S256) against the deployment's
// identity provider, read from its discovery document. The library keeps the sign-in's state and PKCE
// verifier in this tab's sessionStorage until the provider answers, and checks the answer's state; it keeps
// no tokens of its own (an in-memory store): the access token becomes the console's one session
// (session.ts), as a development link's token does.
import { InMemoryWebStorage, UserManager, WebStorageStateStore } from 'oidc-client-ts';
import { type OidcSettings, redirectUriOf } from './oidc-rules.ts';

const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

function userManagerFor(settings: OidcSettings): UserManager {
  return new UserManager({
    authority: settings.issuer,
    client_id: settings.clientId,
    scope: settings.scope,
    redirect_uri: redirectUriOf(window.location.origin, BASE),
    response_type: 'code',
    stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    // No hidden iframes, no polling of the provider's session, no userinfo call: the access token's
    // claims are all the console reads, and the session ends at its expiry.
    automaticSilentRenew: false,
    monitorSession: false,
    loadUserInfo: false,
  });
}

/** Sends the tab to the identity provider to sign in; it comes back to the callback page. */
export async function startProviderSignIn(settings: OidcSettings): Promise<void> {
  await userManagerFor(settings).signinRedirect();
}

/**
 * The access token for the provider's answer (the callback URL taken at boot): the state checked against
 * this tab's, the code exchanged with its PKCE verifier. Throws the provider's error (access_denied, …).
 */
export async function finishProviderSignIn(settings: OidcSettings, response: string): Promise<string> {
  const user = await userManagerFor(settings).signinRedirectCallback(response);
  return user.access_token;
}
