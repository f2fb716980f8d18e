// A tiny OIDC issuer for tests: HTTPS on loopback with a CA of its own (ensureLocalPki in a temp dir), a discovery
// document and a JWKS, and ID tokens signed with jose. Keys can be rotated; fetches are counted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { ensureLocalPki } from '../../src/pki/index.ts';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

interface SigningKey {
  kid: string;
  privateKey: PrivateKey;
  jwk: JWK;
}

export interface TestOidcIssuer {
  url: string;
  caFile: string;
  caPem: string;
  /** How often discovery and the JWKS were fetched. */
  fetches: { discovery: number; jwks: number };
  /** Signs an ID token with the current key; `claims` override iss/aud/iat/exp. */
  sign(claims: JWTPayload, opts?: { kid?: string; key?: PrivateKey }): Promise<string>;
  /** Adds a new current key (the old ones stay published); returns its kid. */
  rotate(): Promise<string>;
  /** A key pair the issuer never published, for forged tokens. */
  foreignKey(): Promise<PrivateKey>;
  close(): Promise<void>;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startOidcIssuer(clientId: string): Promise<TestOidcIssuer> {
  const dir = mkdtempSync(join(tmpdir(), 'oidc-issuer-'));
  const pki = await ensureLocalPki(dir);
  const caFile = join(dir, 'issuer-ca.crt');
  writeFileSync(caFile, pki.caPem);
  const keys: SigningKey[] = [await newKey('key-1')];
  const fetches = { discovery: 0, jwks: 0 };
  let url = '';
  const server: Server = createServer({ key: pki.serving.keyPem, cert: pki.serving.certPem }, (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      fetches.discovery++;
      res.end(
        JSON.stringify({
          issuer: url,
          jwks_uri: `${url}/keys`,
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
    } else if (req.url === '/keys') {
      fetches.jwks++;
      res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    caFile,
    caPem: pki.caPem,
    fetches,
    async sign(claims, opts = {}) {
      const current = keys[keys.length - 1];
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: url, aud: clientId, iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? current.kid })
        .sign(opts.key ?? current.privateKey);
    },
    async rotate() {
      const k = await newKey(`key-${keys.length + 1}`);
      keys.push(k);
      return k.kid;
    },
    foreignKey: async () => (await newKey('foreign')).privateKey,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
