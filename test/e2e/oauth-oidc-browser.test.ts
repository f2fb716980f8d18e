// A sample OpenID Connect client signs a user in through kapiserver, in headless Chromium: the client (a small HTTP
// server here, its redirect URI) reads kapiserver's discovery document, sends the browser to the authorization
// endpoint with state, nonce and PKCE, the user signs in on kapiserver's page, and the client exchanges the code and
// verifies the ID token against /oauth/keys. A second sign-in from the same browser uses the session, without a
// password; after logout the page is shown again.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { CHROMIUM } from '../helpers/console.ts';
import { createUser } from '../helpers/oauth.ts';
import { launchChromium, startSampleClient } from '../helpers/sample-oidc-client.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const CLIENT_ID = 'sample-app';
const skip = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not installed (apt-get install -y chromium)`;
if (skip) console.log(`# ${skip}`);

let stack: TestStack;
let client: { url: string; close(): void };
let clientUrl = '';
let browser: Browser;
before(async () => {
  if (skip) return;
  client = await startSampleClient(() => stack.url, CLIENT_ID);
  clientUrl = client.url;
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
  browser = await launchChromium();
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
