// A real, throw-away OpenLDAP server (Debian's slapd) for tests: a temporary slapd.conf (mdb backend), a seeded
// directory (users, groups, a service account for kapiserver's manager bind, a user whose name is an LDAP filter
// fragment), plain LDAP (also StartTLS) and LDAPS on free loopback ports, with a certificate from a fresh local CA.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLocalPki } from '../../src/pki/index.ts';
import { freePort } from './ports.ts';

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';

export const LDAP_BASE = 'dc=example,dc=org';
export const LDAP_MANAGER = { dn: `cn=kapiserver,ou=services,${LDAP_BASE}`, password: 'manager-Secret-1' };

/** The seeded people: login (uid), password, mail, the groups (cn under ou=groups) they belong to. */
export const LDAP_USERS = {
  alice: { password: 'alice-Pass-1', mail: 'alice@example.org', groups: ['developers', 'operators'] },
  bob: { password: 'bob-Pass-1', mail: 'bob@example.org', groups: ['developers'] },
  carol: { password: 'carol-Pass-1', mail: 'carol@example.org', groups: [] as string[] },
  /** A login that is a filter fragment: escaped, it is just a name; injected, it would match every entry. */
  '*)(uid=*': { password: 'star-Pass-1', mail: 'star@example.org', groups: [] as string[] },
} as const;
/** A member of a group whose cn is a platform group name: a provider must never hand that out. */
export const LDAP_SYSTEM_GROUP = 'system:masters';

export interface TestSlapd {
  /** ldap://127.0.0.1:<port> (plain; StartTLS offered). */
  url: string;
  /** ldaps://127.0.0.1:<port>. */
  ldapsUrl: string;
  port: number;
  ldapsPort: number;
  /** PEM of the CA that issued the server certificate; also written to `caFile`. */
  caPem: string;
  caFile: string;
  dir: string;
  /** SIGSTOP: connections are accepted by the kernel but nothing answers (a hung directory). */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** Why LDAP tests cannot run here, or undefined when slapd is available. */
export function slapdUnavailableReason(): string | undefined {
  if (!existsSync(SLAPD) || !existsSync(SLAPADD)) {
    return 'slapd is not installed (apt-get install -y slapd ldap-utils); skipping the LDAP identity provider tests';
  }
  return undefined;
}

function seedLdif(): string {
  const entries = [
    `dn: ${LDAP_BASE}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example`,
    `dn: ou=people,${LDAP_BASE}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ou=groups,${LDAP_BASE}\nobjectClass: organizationalUnit\nou: groups`,
    `dn: ou=services,${LDAP_BASE}\nobjectClass: organizationalUnit\nou: services`,
    `dn: ${LDAP_MANAGER.dn}\nobjectClass: person\ncn: kapiserver\nsn: kapiserver\nuserPassword: ${LDAP_MANAGER.password}`,
  ];
  const dnOf = (uid: string) => `uid=${uid.replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)},ou=people,${LDAP_BASE}`;
  const groups = new Map<string, string[]>();
  for (const [uid, u] of Object.entries(LDAP_USERS)) {
    // base64 (::) for values with characters LDIF would misread.
    entries.push(
      [
        `dn:: ${Buffer.from(dnOf(uid)).toString('base64')}`,
        'objectClass: inetOrgPerson',
        `uid:: ${Buffer.from(uid).toString('base64')}`,
        `cn:: ${Buffer.from(uid).toString('base64')}`,
        'sn: person',
        `mail: ${u.mail}`,
        `userPassword: ${u.password}`,
      ].join('\n'),
    );
    for (const g of u.groups) groups.set(g, [...(groups.get(g) ?? []), dnOf(uid)]);
  }
  groups.set(LDAP_SYSTEM_GROUP, [dnOf('alice')]);
  for (const [cn, members] of groups) {
    entries.push(
      [
        `dn:: ${Buffer.from(`cn=${cn},ou=groups,${LDAP_BASE}`).toString('base64')}`,
        'objectClass: groupOfNames',
        `cn: ${cn}`,
        ...members.map((m) => `member:: ${Buffer.from(m).toString('base64')}`),
      ].join('\n'),
    );
  }
  return `${entries.join('\n\n')}\n`;
}

function slapdConf(dir: string): string {
  return [
    'include /etc/ldap/schema/core.schema',
    'include /etc/ldap/schema/cosine.schema',
    'include /etc/ldap/schema/inetorgperson.schema',
    'include /etc/ldap/schema/nis.schema',
    `pidfile ${dir}/slapd.pid`,
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    `TLSCACertificateFile ${dir}/ca.pem`,
    `TLSCertificateFile ${dir}/server.pem`,
    `TLSCertificateKeyFile ${dir}/server-key.pem`,
    'database mdb',
    `suffix "${LDAP_BASE}"`,
    `directory ${dir}/db`,
    'maxsize 16777216',
    // Passwords: only for binding; everything else: readable by bound entries (the manager), never anonymously.
    'access to attrs=userPassword by anonymous auth by * none',
    'access to * by users read by * none',
    '',
  ].join('\n');
}

export async function startSlapd(): Promise<TestSlapd> {
  const dir = mkdtempSync(join(tmpdir(), 'kapiserver-slapd-'));
  const pki = await ensureLocalPki(join(dir, 'pki'), ['127.0.0.1', 'localhost']);
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pki.caPem);
  writeFileSync(join(dir, 'server.pem'), pki.serving.certPem);
  writeFileSync(join(dir, 'server-key.pem'), pki.serving.keyPem, { mode: 0o600 });
  mkdirSync(join(dir, 'db'));
  const conf = join(dir, 'slapd.conf');
  writeFileSync(conf, slapdConf(dir));
  writeFileSync(join(dir, 'seed.ldif'), seedLdif());
  const add = spawnSync(SLAPADD, ['-f', conf, '-l', join(dir, 'seed.ldif')], { encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`slapadd failed: ${add.stderr.slice(0, 1000)}`);

  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const ldapsPort = await freePort();
    const child: ChildProcess = spawn(
      SLAPD,
      ['-f', conf, '-h', `ldap://127.0.0.1:${port}/ ldaps://127.0.0.1:${ldapsPort}/`, '-d', '0'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    if (await listening(port, exited)) {
      return {
        url: `ldap://127.0.0.1:${port}`,
        ldapsUrl: `ldaps://127.0.0.1:${ldapsPort}`,
        port,
        ldapsPort,
        caPem: pki.caPem,
        caFile,
        dir,
        pause: () => child.kill('SIGSTOP'),
        resume: () => child.kill('SIGCONT'),
        async stop() {
          child.kill('SIGCONT');
          child.kill('SIGTERM');
          const t = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(t);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill('SIGKILL');
    await exited;
    if (!/in use/i.test(err)) throw new Error(`slapd did not start: ${err.slice(0, 1000)}`);
  }
  throw new Error('slapd did not start: no free port');
}

/** True once the port accepts connections; false if the process exits first or after 10 s. */
async function listening(port: number, exited: Promise<void>): Promise<boolean> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + 10_000;
  while (!gone && Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** A kubesphere.yaml LDAPIdentityProvider entry for this directory (readTimeout 500 ms; `extra` overrides). */
export function ldapProvider(
  name: string,
  slapd: TestSlapd,
  mappingMethod: string,
  extra: Record<string, unknown> = {},
) {
  return {
    name,
    type: 'LDAPIdentityProvider',
    mappingMethod,
    provider: {
      host: `127.0.0.1:${slapd.port}`,
      managerDN: LDAP_MANAGER.dn,
      managerPassword: LDAP_MANAGER.password,
      userSearchBase: `ou=people,${LDAP_BASE}`,
      userSearchFilter: '(objectClass=inetOrgPerson)',
      loginAttribute: 'uid',
      mailAttribute: 'mail',
      groupSearchBase: `ou=groups,${LDAP_BASE}`,
      groupSearchFilter: '(objectClass=groupOfNames)',
      readTimeout: 500,
      ...extra,
    },
  };
}
