// The generic OIDC identity provider end to end against a real OpenID Connect provider (the `oidc-provider` package,
// test/helpers/upstream-oidc.ts) in headless Chromium: GET /oauth/login/{idp} -> upstream sign-in -> the callback
// answers tokens; the sign-in page's button completes a sample client's pending authorization; and the hostile
// cases: a replayed or mismatched state, two callbacks racing with one state, ID tokens with a wrong audience or
// nonce or already expired. Each refusal is a 4xx and creates no User.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM } from '../helpers/console.ts';
import { bearer, devRest } from '../helpers/oauth.ts';
import { launchChromium, startSampleClient } from '../helpers/sample-oidc-client.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';
import { startUpstreamOidc, type TestUpstreamOidc } from '../helpers/upstream-oidc.ts';

const IDP = 'corp-oidc';
const CLIENT_ID = 'oidc-app';
const USERS = '/apis/iam.kubesphere.io/v1alpha2/users';
const skip = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not installed (apt-get install -y chromium)`;
if (skip) console.log(`# ${skip}`);

interface User {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { email?: string };
}

/** Signs in on the upstream's page as `login` (any password), if it asks. */
async function upstreamSignIn(page: Page, login: string): Promise<void> {
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any-password');
  await page.click('button[type=submit]');
}

describe('OIDC identity provider against oidc-provider', { skip }, () => {
  let upstream: TestUpstreamOidc;
  let stack: TestStack;
  let client: { url: string; close(): void };
  let browser: Browser;
  let hop: Server;
  let hopUrl = '';
  /** While set, the front door keeps the upstream's redirect instead of forwarding it. */
  let held: ((path: string) => void) | undefined;
  const callback = () => `${stack.url}/oauth/callback/${IDP}`;

  before(async () => {
    upstream = await startUpstreamOidc();
    // kapiserver listens on a port chosen at start, but its redirectURL is configuration: a front door (as a reverse
    // proxy would be) on a port known first forwards the upstream's redirect to kapiserver's callback.
    hop = createServer((req, res) => {
      if (held) {
        // The test sends this callback itself (replays, races, tampered tokens).
        held(req.url ?? '/');
        res.writeHead(204).end();
        return;
      }
      res.writeHead(302, { location: `${stack.url}${req.url ?? '/'}` }).end();
    });
    await new Promise<void>((r) => hop.listen(0, '127.0.0.1', r));
    hopUrl = `http://127.0.0.1:${(hop.address() as AddressInfo).port}`;
    client = await startSampleClient(() => stack.url, CLIENT_ID);
    stack = await startTestStack({
      configDocument: {
        authentication: {
          oauthOptions: {
            clients: [{ name: CLIENT_ID, secret: '', redirectURIs: [`${client.url}/callback`] }],
            identityProviders: [
              {
                name: IDP,
                type: 'OIDCIdentityProvider',
                mappingMethod: 'auto',
                provider: {
                  issuer: upstream.issuer,
                  clientID: upstream.clientID,
                  clientSecret: upstream.clientSecret,
                  redirectURL: `${hopUrl}/oauth/callback/${IDP}`,
                  scopes: ['openid', 'profile', 'email'],
                },
              },
            ],
          },
        },
      },
    });
    await upstream.start(`${hopUrl}/oauth/callback/${IDP}`);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    client?.close();
    await stack?.close();
    await upstream?.stop();
    hop?.close();
  });

  /** Starts a sign-in through GET /oauth/login/{idp} and signs in upstream; returns the callback URL, unsent. */
  async function callbackOf(login: string): Promise<{ url: string; state: string }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const seen = new Promise<string>((resolve) => {
      held = resolve;
    });
    try {
      await page.goto(`${stack.url}/oauth/login/${IDP}`);
      await upstreamSignIn(page, login);
      const back = new URL(await seen, hopUrl);
      return { url: `${callback()}${back.search}`, state: back.searchParams.get('state') ?? '' };
    } finally {
      held = undefined;
      await context.close();
    }
  }

  const sendCallback = (url: string, state: string) =>
    fetch(url, { headers: { cookie: `kapiserver_idp_state=${state}`, accept: 'application/json' } });

  const noUser = (name: string) => assert.rejects(devRest(stack).get(`${USERS}/${name}`), /not found/i);

  it('GET /oauth/login/{idp} -> upstream -> callback answers tokens for a User mapped automatically', async () => {
    const { url, state } = await callbackOf('erin');
    const res = await sendCallback(url, state);
    assert.equal(res.status, 200);
    const tokens = (await res.json()) as { access_token: string; refresh_token: string };
    const info = await fetch(`${stack.url}/oauth/userinfo`, { headers: bearer(tokens.access_token) });
    assert.deepEqual(
      { status: info.status, ...((await info.json()) as object) },
      { status: 200, sub: 'erin', name: 'erin', preferred_username: 'erin', email: 'erin@upstream.example' },
    );
    const erin = await devRest(stack).get<User>(`${USERS}/erin`);
    assert.equal(erin.metadata.labels?.['iam.kubesphere.io/identify-provider'], IDP);
    assert.equal(erin.metadata.labels?.['iam.kubesphere.io/origin-uid'], 'erin');

    // The same callback again: the state was used up.
    const replay = await sendCallback(url, state);
    assert.equal(replay.status, 400);
    assert.equal(((await replay.json()) as { error: string }).error, 'invalid_grant');
  });

  it('a state that is not the browser’s, or two callbacks racing with one state: refused, no User', async () => {
    const { url, state } = await callbackOf('frank');
    const otherBrowser = await sendCallback(url, `${state.slice(0, -2)}xx`);
    assert.equal(otherBrowser.status, 400);
    await noUser('frank');

    const race = await Promise.all([
      sendCallback(url, state),
      sendCallback(url, state),
      sendCallback(url, state),
    ]);
    assert.deepEqual(race.map((r) => r.status).sort(), [200, 400, 400], 'exactly one callback continues');
  });

  for (const [what, change] of [
    ['a wrong audience', (c: Record<string, unknown>) => ({ ...c, aud: 'someone-else' })],
    ['a wrong nonce', (c: Record<string, unknown>) => ({ ...c, nonce: 'not-the-one-sent' })],
    [
      'an expired lifetime',
      (c: Record<string, unknown>) => ({
        ...c,
        iat: Math.floor(Date.now() / 1000) - 7200,
        exp: Math.floor(Date.now() / 1000) - 3600,
      }),
    ],
  ] as const) {
    it(`an ID token with ${what} is refused and creates no User`, async () => {
      const login = `mallory-${what.split(' ').at(-1)}`;
      const { url, state } = await callbackOf(login);
      upstream.tamper(change);
      try {
        const res = await sendCallback(url, state);
        assert.equal(res.status, 401);
        const body = (await res.json()) as { error: string; error_description: string };
        assert.equal(body.error, 'invalid_grant');
        assert.match(body.error_description, /ID token .* is not valid/);
      } finally {
        upstream.tamper(undefined);
      }
      await noUser(login);
    });
  }

  it('the sign-in page’s button completes a sample client’s pending authorization', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${client.url}/login`);
    assert.equal(await page.title(), 'Sign in');
    await page.click(`a.idp:has-text("Sign in with ${IDP}")`);
    await upstreamSignIn(page, 'grace');
    await page.waitForURL(`${client.url}/callback?**`);
    assert.equal(await page.locator('#who').textContent(), 'grace grace@upstream.example');
    const grace = await devRest(stack).get<User>(`${USERS}/grace`);
    assert.equal(grace.metadata.labels?.['iam.kubesphere.io/identify-provider'], IDP);
    await context.close();
  });
});
