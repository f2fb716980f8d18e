// Token issuance benchmark (loopback only, bounded):
//  - logins/s through POST /oauth/token next to bare bcrypt verifications/s at the same cost and concurrency
//    (login is bcrypt-bound: target ratio >= 0.9),
//  - /healthz latency (p50/p99) while the login storm runs (the event loop must stay responsive),
//  - authenticated requests/s on a trivial endpoint (GET /oauth/userinfo: JWT verify + token store + user cache).
// Prints one JSON document and a one-line summary.
import { hash, verify } from '@node-rs/bcrypt';
import autocannon from 'autocannon';
import { BCRYPT_COST } from '../src/apiserver/iam/password.ts';
import { login } from '../test/helpers/oauth.ts';
import { startTestStack } from '../test/helpers/stack.ts';

const CONCURRENCY = 8;
const BCRYPT_OPS = Number(process.env.BENCH_BCRYPT_OPS ?? 160);
const LOGINS = Number(process.env.BENCH_LOGINS ?? 160);
const AUTH_SECONDS = Number(process.env.BENCH_AUTH_SECONDS ?? 5);

async function pool(total: number, concurrency: number, task: () => Promise<void>): Promise<number> {
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < total) {
        started++;
        await task();
      }
    }),
  );
  return (performance.now() - t0) / 1000;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main() {
  // 1. Bare bcrypt at the same cost and concurrency.
  const password = 'Bench-Passw0rd';
  const hashed = await hash(password, { cost: BCRYPT_COST });
  await verify(password, hashed);
  const bareBcrypt = async () =>
    BCRYPT_OPS /
    (await pool(BCRYPT_OPS, CONCURRENCY, async () => {
      if (!(await verify(password, hashed))) throw new Error('bcrypt verify failed');
    }));
  // Measured before and after the login storm, averaged: the machine is shared, so one sample can be noisy.
  const bcryptBefore = await bareBcrypt();

  // 2. Logins through the full stack (dev cluster in the same process, like `npm start`), with /healthz probed.
  const stack = await startTestStack();
  try {
    await login(stack);
    const health: number[] = [];
    let storming = true;
    const prober = (async () => {
      while (storming) {
        const t0 = performance.now();
        const r = await fetch(`${stack.url}/healthz`);
        await r.text();
        health.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    let failures = 0;
    const loginSeconds = await pool(LOGINS, CONCURRENCY, async () => {
      const r = await fetch(`${stack.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'password',
          username: 'admin',
          password: stack.adminPassword,
          client_id: 'kubesphere',
          client_secret: 'kubesphere',
        }),
      });
      await r.text();
      if (r.status !== 200) failures++;
    });
    storming = false;
    await prober;
    const loginsPerSecond = LOGINS / loginSeconds;
    const bcryptAfter = await bareBcrypt();
    const bcryptPerSecond = (bcryptBefore + bcryptAfter) / 2;
    health.sort((a, b) => a - b);

    // 3. Authenticated requests on a trivial endpoint.
    const token = (await login(stack)).access_token;
    const ac = await autocannon({
      url: `${stack.url}/oauth/userinfo`,
      connections: 20,
      duration: AUTH_SECONDS,
      headers: { authorization: `Bearer ${token}` },
    });
    const result = {
      bcryptCost: BCRYPT_COST,
      concurrency: CONCURRENCY,
      bcryptVerifyPerSecond: Math.round(bcryptPerSecond * 10) / 10,
      bcryptVerifyPerSecondSamples: [Math.round(bcryptBefore * 10) / 10, Math.round(bcryptAfter * 10) / 10],
      loginsPerSecond: Math.round(loginsPerSecond * 10) / 10,
      loginToBcryptRatio: Math.round((loginsPerSecond / bcryptPerSecond) * 100) / 100,
      loginFailures: failures,
      healthzDuringLogins: {
        samples: health.length,
        p50ms: Math.round(percentile(health, 50) * 10) / 10,
        p99ms: Math.round(percentile(health, 99) * 10) / 10,
        maxMs: Math.round((health[health.length - 1] ?? 0) * 10) / 10,
      },
      authenticatedRequests: {
        endpoint: 'GET /oauth/userinfo',
        connections: 20,
        seconds: AUTH_SECONDS,
        requestsPerSecond: Math.round(ac.requests.average),
        latencyP99ms: ac.latency.p99,
        non2xx: ac.non2xx,
        errors: ac.errors,
      },
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(
      `oauth: ${result.loginsPerSecond} logins/s vs ${result.bcryptVerifyPerSecond} bare bcrypt/s (ratio ${result.loginToBcryptRatio}, target >= 0.9); /healthz p99 ${result.healthzDuringLogins.p99ms} ms during logins; ${result.authenticatedRequests.requestsPerSecond} authenticated req/s`,
    );
  } finally {
    await stack.close();
  }
}

await main();
