// HTTP Basic vs bearer benchmark (issue 12's performance line; loopback only, bounded): req/s of
// `GET /kapis/tenant.kubesphere.io/v1alpha2/workspaces` by a user who is a member of a few workspaces (no global
// role: the list is filtered to their memberships) with `Authorization: Basic` on every call (a Go-style client), as
// a ratio of the same call with a bearer token. Target >= 0.9: verified credentials are cached, so Basic pays no
// bcrypt per request. autocannon runs in its own process; bearer and Basic runs alternate, ROUNDS times each, and
// the ratio is of their sums (the machine is shared).
// Prints one JSON document and a one-line summary. BENCH_SECONDS (3 per run), BENCH_ROUNDS (3).
import { createUser, login } from '../test/helpers/oauth.ts';
import { startTestStack } from '../test/helpers/stack.ts';
import { autocannon, type Load, waitFor } from './_helpers.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 20;
const PATH = '/kapis/tenant.kubesphere.io/v1alpha2/workspaces';
const USER = 'bench-member';
const PASSWORD = 'Bench-Passw0rd';
/** Workspaces the user manages (one binding each); as many again they are not a member of. */
const MEMBER_OF = 5;
const TARGET = 0.9;

async function run(url: string, authorization: string): Promise<Load> {
  const r = await autocannon({ url, connections: CONNECTIONS, seconds: SECONDS, headers: { authorization } });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return r;
}

async function main() {
  const stack = await startTestStack();
  try {
    const url = `${stack.url}${PATH}`;
    const admin = `Bearer ${(await login(stack)).access_token}`;
    await createUser(stack, USER, PASSWORD);
    for (let i = 0; i < 2 * MEMBER_OF; i++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: admin, 'content-type': 'application/json' },
        body: JSON.stringify({
          metadata: { name: `bench-ws-${i}` },
          spec: { template: { spec: i < MEMBER_OF ? { manager: USER } : {} } },
        }),
      });
      if (res.status !== 200) throw new Error(`creating bench-ws-${i}: ${res.status} ${await res.text()}`);
    }
    const bearer = `Bearer ${(await login(stack, USER, PASSWORD)).access_token}`;
    const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    // The workspace controller binds the manager: wait until the list holds exactly the user's workspaces.
    await waitFor(
      `${USER} to list ${MEMBER_OF} workspaces`,
      async () => {
        const res = await fetch(url, { headers: { authorization: bearer } });
        return res.ok && ((await res.json()) as { totalItems: number }).totalItems === MEMBER_OF;
      },
      30_000,
    );
    // Warm-up: route compilation, the first (bcrypt-paying) Basic verification.
    await run(url, bearer);
    await run(url, basic);
    const runs: { bearer: Load[]; basic: Load[] } = { bearer: [], basic: [] };
    for (let i = 0; i < ROUNDS; i++) {
      runs.bearer.push(await run(url, bearer));
      runs.basic.push(await run(url, basic));
    }
    const sum = (xs: Load[]) => xs.reduce((a, x) => a + x.rps, 0);
    const ratio = Math.round((sum(runs.basic) / sum(runs.bearer)) * 100) / 100;
    const result = {
      endpoint: `GET ${PATH}`,
      memberOfWorkspaces: MEMBER_OF,
      workspaces: 2 * MEMBER_OF,
      connections: CONNECTIONS,
      secondsPerRun: SECONDS,
      rounds: ROUNDS,
      bearerRequestsPerSecond: runs.bearer.map((r) => Math.round(r.rps)),
      basicRequestsPerSecond: runs.basic.map((r) => Math.round(r.rps)),
      bearerP99ms: runs.bearer.map((r) => r.p99),
      basicP99ms: runs.basic.map((r) => r.p99),
      basicToBearerRatio: ratio,
      target: TARGET,
      meetsTarget: ratio >= TARGET,
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(
      `basic-auth: ${Math.round(sum(runs.basic) / ROUNDS)} req/s with Basic vs ${Math.round(sum(runs.bearer) / ROUNDS)} with a bearer token on GET ${PATH} as a member of ${MEMBER_OF} of ${2 * MEMBER_OF} workspaces (ratio ${ratio}, target >= ${TARGET})`,
    );
  } finally {
    await stack.close();
  }
}

await main();
