// A sample OpenID Connect client signs a user in through kapiserver, in headless Chromium: the client (a small HTTP
// server here, its redirect URI) reads kapiserver's discovery document, sends the browser to the authorization
// endpoint with state, nonce and PKCE, the user signs in on kapiserver's page, and the client exchanges the code and
// verifies the ID token against /oauth/keys. A second sign-in from the same browser uses the session, without a
// password; after logout the page is shown again.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser } from 'playwright-core';
import { CHROMIUM } from '../helpers/console.ts';
import { createUser } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const CLIENT_ID = 'sample-app';
const skip = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not installed (apt-get install -y chromium)`;
if (skip) console.log(`# ${skip}`);

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/** The relying party: /login starts a sign-in, /callback finishes it and shows who signed in (or why not). */
function sampleClient(kapiserver: () => string) {
  const pending = new Map<string, { nonce: string; verifier: string }>();
  let discovery: Discovery;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const redirectUri = `http://${req.headers.host}/callback`;
    try {
      discovery ??= (await (
        await fetch(`${kapiserver()}/.well-known/openid-configuration`)
      ).json()) as Discovery;
      if (url.pathname === '/login') {
        const state = randomBytes(16).toString('base64url');
        const nonce = randomBytes(16).toString('base64url');
        const verifier = randomBytes(32).toString('base64url');
        pending.set(state, { nonce, verifier });
        const auth = new URL(discovery.authorization_endpoint);
        auth.search = new URLSearchParams({
          response_type: 'code',
          client_id: CLIENT_ID,
          redirect_uri: redirectUri,
          scope: 'openid profile email',
          state,
          nonce,
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
        }).toString();
        res.writeHead(302, { location: auth.toString() }).end();
        return;
      }
      if (url.pathname === '/callback') {
        const state = url.searchParams.get('state') ?? '';
        const p = pending.get(state);
        pending.delete(state);
        if (!p) throw new Error('unknown state');
        const token = await fetch(discovery.token_endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: url.searchParams.get('code') ?? '',
            redirect_uri: redirectUri,
            client_id: CLIENT_ID,
            code_verifier: p.verifier,
          }),
        });
        const body = (await token.json()) as Record<string, string>;
        if (!body.id_token) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
        const { payload } = await jwtVerify(body.id_token, createRemoteJWKSet(new URL(discovery.jwks_uri)), {
          issuer: discovery.issuer,
          audience: CLIENT_ID,
        });
        if (payload.nonce !== p.nonce) throw new Error('nonce mismatch');
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<p id="who">${payload.sub} ${payload.email}</p>`);
        return;
      }
      res.writeHead(404).end();
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/html' }).end(`<p id="error">${(err as Error).message}</p>`);
    }
  });
  return server;
}

let stack: TestStack;
let client: Server;
let clientUrl = '';
let browser: Browser;
before(async () => {
  if (skip) return;
  client = sampleClient(() => stack.url);
  await new Promise<void>((r) => client.listen(0, '127.0.0.1', r));
  clientUrl = `http://127.0.0.1:${(client.address() as AddressInfo).port}`;
  stack = await startTestStack({
    configDocument: {
      authentication: {
        oauthOptions: {
          // A public client: no secret, so PKCE is its proof at the token endpoint.
          clients: [
            { name: CLIENT_ID, secret: '', redirectURIs: [`${clientUrl}/callback`] },
            { name: 'kubesphere', secret: 'kubesphere' }, // the test helpers' password logins
          ],
        },
      },
    },
  });
  await createUser(stack, 'alice', 'Alice-pw-1234');
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
});
after(async () => {
  await browser?.close();
  client?.close();
  await stack?.close();
});

test('a sample OIDC client signs a user in through kapiserver and verifies the ID token', {
  skip,
}, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const blocked: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
  });

  await page.goto(`${clientUrl}/login`);
  assert.equal(new URL(page.url()).pathname, '/oauth/authorize', 'the browser is on kapiserver');
  assert.equal(await page.title(), 'Sign in');

  // A wrong password: the page again, with a message that does not say which part was wrong.
  await page.fill('#username', 'alice');
  await page.fill('#password', 'not-her-password');
  await page.click('button[type=submit]');
  assert.match((await page.locator('[role=alert]').textContent()) ?? '', /Incorrect username or password/);

  await page.fill('#password', 'Alice-pw-1234');
  await page.click('button[type=submit]');
  await page.waitForURL(`${clientUrl}/callback?**`);
  assert.equal(await page.locator('#who').textContent(), 'alice alice@example.com');
  assert.deepEqual(blocked, [], 'nothing on the page was blocked by its CSP');

  const cookies = await context.cookies(`${stack.url}/oauth/authorize`);
  const session = cookies.find((c) => c.name === 'kapiserver_session');
  assert.ok(session, 'a session cookie');
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Lax');
  assert.equal(session.path, '/oauth');

  // Same browser again: the session signs in without a password.
  await page.goto(`${clientUrl}/login`);
  await page.waitForURL(`${clientUrl}/callback?**`);
  assert.equal(await page.locator('#who').textContent(), 'alice alice@example.com');

  // Logout ends the session: the sign-in page is back.
  await page.goto(`${stack.url}/oauth/logout`);
  await page.goto(`${clientUrl}/login`);
  assert.equal(await page.title(), 'Sign in');
  await context.close();
});
