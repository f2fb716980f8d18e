// The "done when", in headless Chromium: a sample OIDC client signs a user in through kapiserver's
// /oauth/authorize with an LDAP identity from a real OpenLDAP (test/helpers/slapd.ts). The sign-in page offers the
// directory beside the local account; the client verifies the ID token against /oauth/keys; the User was created by
// mappingMethod auto with KubeSphere's provider labels. Also: a wrong directory password and an unknown login read
// the same, the local account still signs in, a directory that hangs is a 503 page, and the form's Origin check
// holds for the directory as for the local account.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { CHROMIUM } from '../helpers/console.ts';
import { createUser, devRest } from '../helpers/oauth.ts';
import { launchChromium, startSampleClient } from '../helpers/sample-oidc-client.ts';
import {
  LDAP_USERS,
  ldapProvider,
  slapdUnavailableReason,
  startSlapd,
  type TestSlapd,
} from '../helpers/slapd.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const CLIENT_ID = 'ldap-app';
const USERS = '/apis/iam.kubesphere.io/v1alpha2/users';
const skip =
  slapdUnavailableReason() ??
  (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not installed (apt-get install -y chromium)`);
if (skip) console.log(`# ${skip}`);

interface User {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { email?: string; groups?: string[] };
}

describe('signing in to a sample OIDC client with an LDAP identity on kapiserver’s page', { skip }, () => {
  let slapd: TestSlapd;
  let stack: TestStack;
  let client: { url: string; close(): void };
  let browser: Browser;
  before(async () => {
    slapd = await startSlapd();
    client = await startSampleClient(() => stack.url, CLIENT_ID);
    stack = await startTestStack({
      configDocument: {
        authentication: {
          oauthOptions: {
            clients: [
              { name: CLIENT_ID, secret: '', redirectURIs: [`${client.url}/callback`] },
              { name: 'kubesphere', secret: 'kubesphere' },
            ],
            identityProviders: [ldapProvider('corp-ldap', slapd, 'auto')],
          },
        },
      },
    });
    await createUser(stack, 'dave', 'Dave-pw-1234');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    client?.close();
    await stack?.close();
    await slapd?.stop();
  });

  it('signs alice in from the directory: ID token verified, User created with the provider labels', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${client.url}/login`);
    assert.equal(await page.title(), 'Sign in');
    assert.equal(await page.locator('#provider').inputValue(), 'corp-ldap', 'the directory is offered first');
    assert.deepEqual(await page.locator('#provider option').allTextContents(), [
      'Local account',
      'corp-ldap',
    ]);

    // A wrong password and a login the directory does not know read the same.
    await page.fill('#username', 'alice');
    await page.fill('#password', 'not-alices');
    await page.click('button[type=submit]');
    const wrong = await page.locator('[role=alert]').textContent();
    await page.fill('#username', 'nobody-here');
    await page.fill('#password', 'whatever-1');
    await page.click('button[type=submit]');
    assert.equal(await page.locator('[role=alert]').textContent(), wrong);
    assert.match(wrong ?? '', /Incorrect username or password/);
    assert.equal(await page.locator('#provider').inputValue(), 'corp-ldap', 'the choice is kept');

    await page.fill('#username', 'alice');
    await page.fill('#password', LDAP_USERS.alice.password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${client.url}/callback?**`);
    assert.equal(await page.locator('#who').textContent(), 'alice alice@example.org');

    const alice = await devRest(stack).get<User>(`${USERS}/alice`);
    assert.equal(alice.metadata.labels?.['iam.kubesphere.io/identify-provider'], 'corp-ldap');
    assert.equal(alice.metadata.labels?.['iam.kubesphere.io/origin-uid'], 'alice');
    assert.equal(alice.spec?.email, 'alice@example.org');
    assert.deepEqual([...(alice.spec?.groups ?? [])].sort(), ['developers', 'operators']);
    await context.close();
  });

  it('the local account is still one choice away; a directory user cannot use it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${client.url}/login`);
    await page.selectOption('#provider', '');
    await page.fill('#username', 'bob');
    await page.fill('#password', LDAP_USERS.bob.password);
    await page.click('button[type=submit]');
    assert.match((await page.locator('[role=alert]').textContent()) ?? '', /Incorrect username or password/);
    await assert.rejects(devRest(stack).get(`${USERS}/bob`), /not found/i, 'no User for bob');

    await page.selectOption('#provider', '');
    await page.fill('#username', 'dave');
    await page.fill('#password', 'Dave-pw-1234');
    await page.click('button[type=submit]');
    await page.waitForURL(`${client.url}/callback?**`);
    assert.equal(await page.locator('#who').textContent(), 'dave dave@example.com');
    await context.close();
  });

  it('a directory that does not answer is a 503 page, and the form still works once it is back', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${client.url}/login`);
    await page.fill('#username', 'carol');
    await page.fill('#password', LDAP_USERS.carol.password);
    slapd.pause();
    let status = 0;
    try {
      const answer = page.waitForResponse((r) => r.url().endsWith('/oauth/sign-in'));
      await page.click('button[type=submit]');
      status = (await answer).status();
    } finally {
      slapd.resume();
    }
    assert.equal(status, 503);
    assert.match((await page.locator('[role=alert]').textContent()) ?? '', /unavailable/);
    await assert.rejects(devRest(stack).get(`${USERS}/carol`), /not found/i, 'nothing stored');

    await page.fill('#password', LDAP_USERS.carol.password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${client.url}/callback?**`);
    assert.equal(await page.locator('#who').textContent(), 'carol carol@example.org');
    await context.close();
  });

  it('a form posted from another site is refused before the directory is asked', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${client.url}/login`);
    const pending = await page.locator('input[name=pending]').inputValue();
    const csrf = await page.locator('input[name=csrf]').inputValue();
    const cookies = await context.cookies(`${stack.url}/oauth/sign-in`);
    const res = await fetch(`${stack.url}/oauth/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; '),
      },
      body: new URLSearchParams({
        pending,
        csrf,
        provider: 'corp-ldap',
        username: 'bob',
        password: LDAP_USERS.bob.password,
      }),
    });
    assert.equal(res.status, 403);
    await assert.rejects(devRest(stack).get(`${USERS}/bob`), /not found/i);
    await context.close();
  });
});
