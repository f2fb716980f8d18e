// Local certificate authority shared by kapiserver's secure port and the embedded dev cluster.
// Generated once under <data-dir>/pki/ and reused on later starts, so kubeconfigs stay valid.
import { webcrypto, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { JsonGeneralName } from '@peculiar/x509';

/**
 * @peculiar/x509 (with its dependency injection, asn1 schemas and reflect-metadata) is loaded only to issue a
 * certificate: a start that finds its certificates reads them with node:crypto.
 */
async function x509Library(): Promise<typeof import('@peculiar/x509')> {
  await import('reflect-metadata'); // its dependency injection needs this loaded first
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  return x509;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export interface KeyPair {
  certPem: string;
  keyPem: string;
}

export interface ServingPki {
  /** PEM of the CA certificate clients must trust. */
  caPem: string;
  /** Serving certificate and key, valid for this host's names and addresses (see servingNames). */
  serving: KeyPair;
}

function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  return webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign']) as Promise<CryptoKey>;
}

async function exportKey(key: CryptoKey): Promise<string> {
  return toPem(await webcrypto.subtle.exportKey('pkcs8', key as webcrypto.CryptoKey), 'PRIVATE KEY');
}

async function generateCa(): Promise<KeyPair> {
  const x509 = await x509Library();
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=kapiserver-ca',
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + TEN_YEARS_MS),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKey(keys.privateKey) };
}

/** Issues a serving certificate signed by the CA for the given DNS names and IP addresses. */
export async function issueServingCert(ca: KeyPair, names: string[]): Promise<KeyPair> {
  const x509 = await x509Library();
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importKey(ca.keyPem);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=kapiserver',
    issuer: caCert.subject,
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + TEN_YEARS_MS),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        names.map((n) => ({ type: isIP(n) ? 'ip' : 'dns', value: n }) as JsonGeneralName),
      ),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKey(keys.privateKey) };
}

function readPair(dir: string, base: string): KeyPair | undefined {
  const crt = join(dir, `${base}.crt`);
  const key = join(dir, `${base}.key`);
  if (!existsSync(crt) || !existsSync(key)) return undefined;
  return { certPem: readFileSync(crt, 'utf8'), keyPem: readFileSync(key, 'utf8') };
}

/** Writes beside and renames into place: a process reading the pair never sees a half-written file. */
function writeAtomic(file: string, text: string, mode: number): void {
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, text, { mode });
  renameSync(draft, file);
}

function writePair(dir: string, base: string, pair: KeyPair): void {
  writeAtomic(join(dir, `${base}.key`), pair.keyPem, 0o600);
  writeAtomic(join(dir, `${base}.crt`), pair.certPem, 0o644);
}

/** One spelling per address (IPv6 has many), so names compare as text. */
function canonical(name: string): string {
  if (isIP(name) === 6) return new URL(`http://[${name}]`).hostname.slice(1, -1);
  return isIP(name) ? name : name.toLowerCase();
}

/**
 * Names a local serving certificate covers: loopback, this host's name, every address of its network interfaces
 * (so a kubeconfig fetched over the LAN verifies), the in-cluster service names, and `extra` (--tls-san).
 */
export function servingNames(extra: string[] = []): string[] {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .map((i) => i?.address)
    .filter((a): a is string => Boolean(a));
  return [
    ...new Set(
      [
        'localhost',
        '127.0.0.1',
        '::1',
        hostname(),
        ...addresses,
        'ks-apiserver',
        'ks-apiserver.kubesphere-system.svc',
        ...extra,
      ].map(canonical),
    ),
  ];
}

/** The DNS names and IP addresses a certificate is valid for. */
export function certificateNames(certPem: string): string[] {
  // node:crypto spells the extension as "DNS:localhost, IP Address:127.0.0.1, ..." (IPv6 in full, upper case).
  const san = new X509Certificate(certPem).subjectAltName ?? '';
  return san
    .split(', ')
    .map((entry) => /^(?:DNS|IP Address):(.*)$/.exec(entry)?.[1])
    .filter((name): name is string => name !== undefined)
    .map(canonical);
}

/**
 * Loads the local CA and serving certificate from <dataDir>/pki, creating what is missing. A serving certificate
 * that lacks a name now needed (a new address, a new --tls-san) is re-issued from the same CA, keeping its old names:
 * kubeconfigs that trust the CA stay valid. Both kapiserver and the dev cluster call this; kapiserver first.
 */
export async function ensureLocalPki(dataDir: string, extraNames: string[] = []): Promise<ServingPki> {
  const dir = join(dataDir, 'pki');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let ca = readPair(dir, 'ca');
  let serving = readPair(dir, 'serving');
  if (!ca) {
    ca = await generateCa();
    writePair(dir, 'ca', ca);
    serving = undefined; // a new CA invalidates any old serving certificate
  }
  const needed = servingNames(extraNames);
  const present = serving ? certificateNames(serving.certPem) : [];
  if (!serving || needed.some((n) => !present.includes(n))) {
    serving = await issueServingCert(ca, [...new Set([...present, ...needed])]);
    writePair(dir, 'serving', serving);
  }
  return { caPem: ca.certPem, serving };
}
