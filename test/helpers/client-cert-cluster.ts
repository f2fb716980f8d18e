// A kubeadm-like orchestrator for tests: an HTTPS front end that demands a client certificate from its own client CA
// (requestCert + rejectUnauthorized) and passes each request on to the dev cluster with the dev cluster's admin
// token, so whoever holds the client certificate is cluster admin, as with kubeadm's admin.conf. Like
// kube-apiserver, it answers a request carrying `Connection: Upgrade` on an endpoint that does not upgrade as an
// ordinary request (200) and keeps reading requests from the same connection. kapiserver's kubeconfig for it has the
// client certificate and no token. `seen` records every request the front end received.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import type { DevCluster } from '../../src/devcluster/index.ts';
import { ensureLocalPki } from '../../src/pki/index.ts';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface ClientCertCluster {
  url: string;
  /** kapiserver's kubeconfig: the front end's CA, the admin client certificate, no token. */
  kubeconfigPath: string;
  seen: { method: string; url: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

function pem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}

/** A client CA and a certificate it signs for CN=kubernetes-admin, O=system:masters (clientAuth). */
async function adminClientCertificate(): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notBefore = new Date(Date.now() - 3600_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=test-client-ca',
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=kubernetes-admin, O=system:masters',
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as webcrypto.CryptoKey);
  return { caPem: ca.toString('pem'), certPem: cert.toString('pem'), keyPem: pem(key, 'PRIVATE KEY') };
}

export async function startClientCertCluster(dev: DevCluster, dir: string): Promise<ClientCertCluster> {
  mkdirSync(dir, { recursive: true });
  const serving = await ensureLocalPki(dir);
  const client = await adminClientCertificate();
  const devUrl = new URL(dev.url);
  const agent = new https.Agent({ ca: dev.caPem, keepAlive: true });
  const seen: ClientCertCluster['seen'] = [];

  // No 'upgrade' listener: Node then serves requests with Upgrade headers as ordinary ones on a kept-alive connection.
  const server = https.createServer(
    {
      cert: serving.serving.certPem,
      key: serving.serving.keyPem,
      ca: client.caPem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const headers = { ...req.headers, host: devUrl.host, authorization: `Bearer ${dev.token}` };
      const up = https.request(
        { host: devUrl.hostname, port: devUrl.port, method: req.method, path: req.url, headers, agent },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      res.on('close', () => up.destroy());
      req.pipe(up);
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: kubeadm, cluster: {server: "${url}", certificate-authority-data: ${b64(serving.caPem)}}}]`,
      `users: [{name: admin, user: {client-certificate-data: ${b64(client.certPem)}, client-key-data: ${b64(client.keyPem)}}}]`,
      'contexts: [{name: kubeadm, context: {cluster: kubeadm, user: admin}}]',
      'current-context: kubeadm',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return {
    url,
    kubeconfigPath,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}
