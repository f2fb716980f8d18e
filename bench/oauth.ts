// Token issuance benchmark (loopback only, bounded):
//  - logins/s through POST /oauth/token next to bare bcrypt verifications/s at the same cost and concurrency
//    (login is bcrypt-bound: target ratio >= 0.95),
//  - /healthz latency (p50/p99) while the login storm runs (the event loop must stay responsive: target p99 < 20 ms),
//  - authenticated requests/s on a trivial endpoint (GET /oauth/userinfo: JWT verify + token store + user cache).
// kapiserver runs in this process with the thread pool sized as main.ts sizes it, the dev cluster as its own process
// (as `npm start` runs them). Prints one JSON document and a one-line summary.
import '../src/threadpool.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash, verify } from '@node-rs/bcrypt';
import autocannon from 'autocannon';
import { BCRYPT_COST } from '../src/apiserver/iam/password.ts';
import { startDevClusterProcess } from '../test/helpers/devcluster.ts';
import { login } from '../test/helpers/oauth.ts';
import { startTestStack } from '../test/helpers/stack.ts';
import { cpuSeconds, median } from './_helpers.ts';

const CONCURRENCY = 8;
const BCRYPT_OPS = Number(process.env.BENCH_BCRYPT_OPS ?? 160);
const LOGINS = Number(process.env.BENCH_LOGINS ?? 160);
const AUTH_SECONDS = Number(process.env.BENCH_AUTH_SECONDS ?? 5);
const TARGET = { loginToBcryptRatio: 0.95, healthzP99Ms: 20 };

/** CPU time of this process (every thread, the thread pool's included), in microseconds. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

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
  const bcryptCpuUs: number[] = [];
  const bareBcrypt = async () => {
    const cpu0 = cpuMicros();
    const seconds = await pool(BCRYPT_OPS, CONCURRENCY, async () => {
      if (!(await verify(password, hashed))) throw new Error('bcrypt verify failed');
    });
    bcryptCpuUs.push((cpuMicros() - cpu0) / BCRYPT_OPS);
    return BCRYPT_OPS / seconds;
  };
  // Measured before and after the login storm, averaged: the machine is shared, so one sample can be noisy.
  const bcryptBefore = await bareBcrypt();

  // 2. Logins through the full stack, with /healthz probed.
  const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-bench-oauth-'));
  const dev = await startDevClusterProcess(dataDir);
  const stack = await startTestStack({ dev, dataDir });
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
    const cpu0 = cpuMicros();
    const dev0 = cpuSeconds(dev.child.pid ?? 0);
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
    const loginCpuUs = (cpuMicros() - cpu0) / LOGINS;
    const dev1 = cpuSeconds(dev.child.pid ?? 0);
    const devCpuUs = dev0 && dev1 ? ((dev1.self - dev0.self) * 1e6) / LOGINS : Number.NaN;
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
      threadPoolSize: Number(process.env.UV_THREADPOOL_SIZE),
      target: TARGET,
      bcryptVerifyPerSecond: Math.round(bcryptPerSecond * 10) / 10,
      bcryptVerifyPerSecondSamples: [Math.round(bcryptBefore * 10) / 10, Math.round(bcryptAfter * 10) / 10],
      loginsPerSecond: Math.round(loginsPerSecond * 10) / 10,
      loginToBcryptRatio: Math.round((loginsPerSecond / bcryptPerSecond) * 100) / 100,
      loginFailures: failures,
      // CPU per login of this process (kapiserver's event loop and its bcrypt threads, the probes and the load), the
      // part of it that is not one bcrypt compare, and the dev cluster's (the LoginRecord write and its watchers).
      cpuUsPerLogin: {
        kapiserver: Math.round(loginCpuUs),
        bcryptCompare: Math.round(median(bcryptCpuUs)),
        kapiserverBesidesBcrypt: Math.round(loginCpuUs - median(bcryptCpuUs)),
        devcluster: Math.round(devCpuUs),
      },
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
      `oauth: ${result.loginsPerSecond} logins/s vs ${result.bcryptVerifyPerSecond} bare bcrypt/s (ratio ${result.loginToBcryptRatio}, target >= ${TARGET.loginToBcryptRatio}); ` +
        `/healthz p99 ${result.healthzDuringLogins.p99ms} ms during logins (target < ${TARGET.healthzP99Ms}); ` +
        `CPU per login ${result.cpuUsPerLogin.kapiserver} us (bcrypt compare ${result.cpuUsPerLogin.bcryptCompare} us) + dev cluster ${result.cpuUsPerLogin.devcluster} us; ` +
        `${result.authenticatedRequests.requestsPerSecond} authenticated req/s; thread pool ${result.threadPoolSize}`,
    );
  } finally {
    await stack.close();
    await dev.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
