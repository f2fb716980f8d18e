// The swagger documents (checked in = generated, served without a token) and the Swagger UI in a real headless
// Chromium: the page renders, lists the node-list operation, gets a token with the password flow, and a call made
// from the page returns nodes.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { CRD_SPEC_FILE, generatedDocuments, KS_SPEC_FILE } from '../../src/apiserver/openapi/generate.ts';
import { type Json, type KapisStack, startKapisStack } from '../apiserver/kapis/helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
let s: KapisStack;

before(async () => {
  s = await startKapisStack();
});
after(async () => {
  await s?.close();
});

test('checked-in swagger documents equal what the code generates (run npm run gen:swagger)', async () => {
  for (const { file, text } of await generatedDocuments()) {
    assert.ok(existsSync(file), `${file} is missing: run npm run gen:swagger`);
    assert.equal(readFileSync(file, 'utf8'), text, `${file} is out of date: run npm run gen:swagger`);
  }
});

test('ks-openapi-spec documents every aggregated route with parameters and responses', () => {
  const doc = JSON.parse(readFileSync(KS_SPEC_FILE, 'utf8')) as Json;
  assert.equal(doc.swagger, '2.0');
  const nodes = doc.paths['/kapis/resources.kubesphere.io/v1alpha3/nodes'].get;
  assert.equal(nodes.operationId, 'ListNodes');
  const params = nodes.parameters.map((p: Json) => p.name);
  for (const p of ['page', 'limit', 'sortBy', 'ascending', 'labelSelector', 'name', 'status'])
    assert.ok(params.includes(p));
  assert.ok(nodes.responses['200'].schema.properties.totalItems);
  for (const path of [
    '/kapis/resources.kubesphere.io/v1alpha3/namespaces/{namespace}/{resources}/{name}',
    '/kapis/iam.kubesphere.io/v1alpha2/users/{user}/password',
    '/kapis/iam.kubesphere.io/v1alpha2/users/{user}/loginrecords',
    '/kapis/config.kubesphere.io/v1alpha2/configs/oauth',
    '/oauth/token',
  ]) {
    assert.ok(doc.paths[path], path);
  }
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Json>)) {
    if (!path.startsWith('/kapis/') || path === '/kapis/version') continue;
    for (const [method, op] of Object.entries(ops as Record<string, Json>)) {
      // The web terminal answers a WebSocket upgrade (101), not a document.
      assert.ok(op.responses?.['200']?.schema ?? op.responses?.['101'], `${method} ${path} has a 200 schema`);
      assert.ok(op.operationId, `${method} ${path} has an operationId`);
    }
  }
  // Shared models are definitions referred to by $ref (not copied into every operation), and every $ref resolves.
  assert.equal(nodes.responses['401'].schema.$ref, '#/definitions/Status');
  assert.equal(
    nodes.responses['401'].description,
    'Missing or invalid credentials (bearer token or HTTP Basic)',
  );
  assert.ok(doc.definitions.Status.properties.reason);
  const refs = JSON.stringify(doc).match(/"\$ref":"#\/definitions\/[^"]+"/g) ?? [];
  assert.ok(refs.length > 50, `${refs.length} references`);
  for (const ref of new Set(refs)) assert.ok(doc.definitions[ref.split('/').pop()!.slice(0, -1)], ref);
  const crd = JSON.parse(readFileSync(CRD_SPEC_FILE, 'utf8')) as Json;
  for (const k of ['User', 'GlobalRole', 'GlobalRoleBinding', 'LoginRecord']) {
    assert.ok(crd.definitions[`io.kubesphere.iam.v1alpha2.${k}`], k);
  }
  assert.ok(crd.definitions['io.kubesphere.installer.v1alpha1.ClusterConfiguration']);
  assert.ok(crd.paths['/apis/iam.kubesphere.io/v1alpha2/users/{name}'].get);
  // Both documents offer HTTP Basic beside the bearer token, as every path accepts it.
  for (const d of [doc, crd]) {
    assert.equal(d.securityDefinitions.BearerToken.in, 'header');
    assert.equal(d.securityDefinitions.BasicAuth.type, 'basic');
    assert.ok(d.security.some((s: Json) => 'BasicAuth' in s));
  }
});

test('both documents and the UI are served without a token', async () => {
  for (const [path, file] of [
    ['/swagger-ui/ks-openapi-spec/swagger.json', KS_SPEC_FILE],
    ['/swagger-ui/openapi-spec/swagger.json', CRD_SPEC_FILE],
  ]) {
    const r = await fetch(`${s.url}${path}`);
    assert.equal(r.status, 200, path);
    assert.equal(await r.text(), readFileSync(file, 'utf8'));
  }
  const ui = await fetch(`${s.url}/swagger-ui/`);
  assert.equal(ui.status, 200);
  assert.match(await ui.text(), /swagger-ui-bundle\.js/);
  assert.equal((await fetch(`${s.url}/swagger-ui/swagger-ui-bundle.js`)).status, 200);
  assert.equal(
    (await fetch(`${s.url}/swagger-ui/package.json`)).status,
    404,
    'only the UI assets are served',
  );
  assert.equal((await fetch(`${s.url}/swagger-ui/..%2F..%2Fpackage.json`)).status, 401);
});

test('Swagger UI in headless Chromium: renders, password flow, a call returns nodes', async (t) => {
  if (!existsSync(CHROMIUM)) {
    t.skip(`${CHROMIUM} not installed (apt-get install -y chromium)`);
    return;
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  t.after(() => browser.close());
  // Swagger UI renders the operations near the viewport first; a tall page shows the resources groups at once.
  const page = await browser.newPage({ viewport: { width: 1400, height: 3000 } });
  await page.goto(`${s.url}/swagger-ui/`);
  const op = page.locator('[id^="operations-resources"][id$="-ListNodes"]');
  await op.waitFor({ timeout: 60_000 });
  assert.match((await op.textContent()) ?? '', /\/kapis\/resources\.kubesphere\.io\/v1alpha3\/nodes/);

  // Authorize with the OAuth2 password flow (client credentials in the Authorization header).
  await page.locator('button.authorize').first().click();
  const modal = page.locator('.modal-ux');
  await modal.locator('#oauth_username').fill('admin');
  await modal.locator('#oauth_password').fill(s.adminPassword);
  await modal.locator('#client_id_password').fill('kubesphere');
  await modal.locator('#client_secret_password').fill('kubesphere');
  const tokenResponse = page.waitForResponse((r) => r.url().endsWith('/oauth/token'));
  await modal
    .locator('.auth-container', { has: page.locator('#oauth_username') })
    .locator('button.authorize')
    .click();
  assert.equal((await tokenResponse).status(), 200);
  await modal.locator('button.btn-done').first().click();

  // Call the node list from the page.
  await op.locator('.opblock-summary').click();
  await op.locator('button.try-out__btn').click();
  const nodesResponse = page.waitForResponse((r) =>
    r.url().includes('/kapis/resources.kubesphere.io/v1alpha3/nodes'),
  );
  await op.locator('button.execute').click();
  const res = await nodesResponse;
  assert.equal(res.status(), 200);
  assert.match(res.request().headers().authorization ?? '', /^Bearer /);
  const body = (await res.json()) as Json;
  assert.equal(body.totalItems, 3);
  await op.locator('.responses-wrapper .live-responses-table').waitFor({ timeout: 30_000 });
  assert.match((await op.locator('.live-responses-table').textContent()) ?? '', /node1/);
});
