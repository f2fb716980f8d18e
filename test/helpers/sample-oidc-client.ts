// A sample OpenID Connect relying party for browser tests (a small HTTP server; its /callback is the redirect URI):
// /login reads kapiserver's discovery document and sends the browser to the authorization endpoint with state, nonce
// and PKCE (a public client); /callback exchanges the code, verifies the ID token against the JWKS (issuer,
// audience, nonce) and shows `<p id="who">sub email</p>`, or `<p id="error">why</p>`.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser } from 'playwright-core';
import { CHROMIUM } from './console.ts';

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/** The relying party: /login starts a sign-in, /callback finishes it and shows who signed in (or why not). */
function sampleClient(kapiserver: () => string, clientId: string): Server {
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
          client_id: clientId,
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
            client_id: clientId,
            code_verifier: p.verifier,
          }),
        });
        const body = (await token.json()) as Record<string, string>;
        if (!body.id_token) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
        const { payload } = await jwtVerify(body.id_token, createRemoteJWKSet(new URL(discovery.jwks_uri)), {
          issuer: discovery.issuer,
          audience: clientId,
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

/** Starts the relying party `clientId` on a free loopback port; `kapiserver()` is kapiserver's base URL. */
export async function startSampleClient(
  kapiserver: () => string,
  clientId: string,
): Promise<{ url: string; close(): void }> {
  const server = sampleClient(kapiserver, clientId);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

/** Headless Chromium (Debian's) for the sign-in tests. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
}
