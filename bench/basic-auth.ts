// HTTP Basic vs bearer benchmark (issue 12's performance line; loopback only, bounded): req/s of
// `GET /kapis/resources.kubesphere.io/v1alpha3/namespaces` as admin with `Authorization: Basic` on every call (a
// Go-style client) as a ratio of the same call with a bearer token. Target >= 0.9: verified credentials are cached,
// so Basic pays no bcrypt per request. (The issue names the tenant workspaces list; that route does not exist yet,
// so a /kapis list with the same authorization path stands in for it.)
// Bearer and Basic runs alternate, ROUNDS times each, and the ratio is of their sums (the machine is shared).
// Prints one JSON document and a one-line summary. BENCH_SECONDS (3 per run), BENCH_ROUNDS (3).
import autocannon from 'autocannon';
import { login } from '../test/helpers/oauth.ts';
import { startTestStack } from '../test/helpers/stack.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 20;
const PATH = '/kapis/resources.kubesphere.io/v1alpha3/namespaces';
const TARGET = 0.9;

async function run(url: string, authorization: string) {
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { authorization },
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { requestsPerSecond: r.requests.average, p99ms: r.latency.p99 };
}

async function main() {
  const stack = await startTestStack();
  try {
    const url = `${stack.url}${PATH}`;
    const bearer = `Bearer ${(await login(stack)).access_token}`;
    const basic = `Basic ${Buffer.from(`admin:${stack.adminPassword}`).toString('base64')}`;
    // Warm-up: informers, route compilation, the first (bcrypt-paying) Basic verification.
    await run(url, bearer);
    await run(url, basic);
    const runs: { bearer: Awaited<ReturnType<typeof run>>[]; basic: Awaited<ReturnType<typeof run>>[] } = {
      bearer: [],
      basic: [],
    };
    for (let i = 0; i < ROUNDS; i++) {
      runs.bearer.push(await run(url, bearer));
      runs.basic.push(await run(url, basic));
    }
    const sum = (xs: { requestsPerSecond: number }[]) => xs.reduce((a, x) => a + x.requestsPerSecond, 0);
    const ratio = Math.round((sum(runs.basic) / sum(runs.bearer)) * 100) / 100;
    const result = {
      endpoint: `GET ${PATH}`,
      connections: CONNECTIONS,
      secondsPerRun: SECONDS,
      rounds: ROUNDS,
      bearerRequestsPerSecond: runs.bearer.map((r) => Math.round(r.requestsPerSecond)),
      basicRequestsPerSecond: runs.basic.map((r) => Math.round(r.requestsPerSecond)),
      bearerP99ms: runs.bearer.map((r) => r.p99ms),
      basicP99ms: runs.basic.map((r) => r.p99ms),
      basicToBearerRatio: ratio,
      target: TARGET,
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(
      `basic-auth: ${Math.round(sum(runs.basic) / ROUNDS)} req/s with Basic vs ${Math.round(sum(runs.bearer) / ROUNDS)} with a bearer token on GET ${PATH} (ratio ${ratio}, target >= ${TARGET})`,
    );
  } finally {
    await stack.close();
  }
}

await main();
