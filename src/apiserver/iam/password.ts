// Password hashing: bcrypt via @node-rs/bcrypt (native, runs on libuv's thread pool, so the event loop stays free).
import { hash, verify } from '@node-rs/bcrypt';

/** Cost 10, KubeSphere's (Go bcrypt.DefaultCost): every existing KubeSphere hash keeps working at the same speed. */
export const BCRYPT_COST = 10;

const BCRYPT_HASH = /^\$2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}$/;

/** True when `s` is a bcrypt hash (anything else in spec.password is plaintext waiting for the controller). */
export function isPasswordHashed(s: string | undefined): boolean {
  return typeof s === 'string' && BCRYPT_HASH.test(s);
}

export function hashPassword(plain: string): Promise<string> {
  return hash(plain, { cost: BCRYPT_COST });
}

/** A hash of a random string, compared against for unknown users so they cost the same time as known ones. */
let dummyHash: Promise<string> | undefined;
function dummy(): Promise<string> {
  dummyHash ??= hash(`unknown-user-${Math.random()}`, { cost: BCRYPT_COST });
  return dummyHash;
}

/**
 * Checks `plain` against `hashed`. When `hashed` is missing or not a bcrypt hash (unknown user, plaintext not yet
 * processed) it still runs one bcrypt comparison, against a dummy hash, and answers false.
 */
export async function verifyPassword(plain: string, hashed: string | undefined): Promise<boolean> {
  if (!isPasswordHashed(hashed)) {
    await verify(plain, await dummy()).catch(() => false);
    return false;
  }
  try {
    return await verify(plain, hashed as string);
  } catch {
    return false;
  }
}
