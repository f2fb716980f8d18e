// First start: create `admin` (bound to the built-in GlobalRole platform-admin) unless it exists. The password is
// `authentication.adminPassword` (KAPISERVER_ADMIN_PASSWORD sets it), else random: printed once to stderr and
// written to <dataDir>/initial-admin-password (mode 0600). Never a well-known default. An existing admin is never changed.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { isConflict, isNotFound, type KubeRest } from '../cluster/index.ts';
import { IAM_GROUP, IAM_VERSION } from '../crds/index.ts';
import { USER_REF_LABEL } from './labels.ts';
import { hashPassword } from './password.ts';
import { kubeTime, type Users } from './users.ts';

export const ADMIN_USER = 'admin';
export const ADMIN_ROLE = 'platform-admin';

export interface BootstrapOptions {
  configuredPassword: string;
  dataDir: string;
  /** Where the one-time console message goes (stderr in production: stdout carries only JSON log lines). */
  print?: (text: string) => void;
}

function randomPassword(): string {
  // 18 random bytes, URL-safe; with a fixed prefix so it satisfies KubeSphere's password rules (upper, lower, digit).
  return `Ks1-${randomBytes(18).toString('base64url')}`;
}

export async function bootstrapAdmin(
  users: Users,
  rest: KubeRest,
  logger: Logger,
  opts: BootstrapOptions,
): Promise<void> {
  let exists = true;
  try {
    await users.fetch(ADMIN_USER);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    exists = false;
  }
  if (!exists) {
    const password = opts.configuredPassword || randomPassword();
    const generated = !opts.configuredPassword;
    try {
      await users.create({
        metadata: { name: ADMIN_USER, annotations: { 'kapiserver.io/bootstrap': 'true' } },
        spec: {
          email: 'admin@kubesphere.io',
          lang: 'en',
          description: 'Platform administrator',
          password: await hashPassword(password),
        },
        status: { state: 'Active', lastTransitionTime: kubeTime() },
      });
      if (generated) {
        const file = join(opts.dataDir, 'initial-admin-password');
        writeFileSync(file, `${password}\n`, { mode: 0o600 });
        (opts.print ?? ((t) => process.stderr.write(t)))(
          `\nCreated user "admin" with a random password (shown only this once; also in ${file}):\n\n    ${password}\n\n`,
        );
      }
      logger.info({ user: ADMIN_USER, generatedPassword: generated }, 'created the initial admin user');
    } catch (err) {
      if (!isConflict(err)) throw err; // another replica created it first
    }
  }
  await users.waitFor(ADMIN_USER);
  const binding = {
    apiVersion: `${IAM_GROUP}/${IAM_VERSION}`,
    kind: 'GlobalRoleBinding',
    metadata: { name: ADMIN_USER, labels: { [USER_REF_LABEL]: ADMIN_USER } },
    roleRef: { apiGroup: IAM_GROUP, kind: 'GlobalRole', name: ADMIN_ROLE },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: ADMIN_USER }],
  };
  try {
    await rest.create(`/apis/${IAM_GROUP}/${IAM_VERSION}/globalrolebindings`, binding);
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
}
