// Starts a real, throw-away redis-server on a free loopback port (no persistence) for tests and benchmarks.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { freePort } from './ports.ts';

export interface TestRedis {
  port: number;
  stop(): Promise<void>;
  /** SIGSTOP: the connection stays open but nothing answers (a hung Redis). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

/** Why Redis tests cannot run here, or undefined when redis-server is available. */
export function redisUnavailableReason(): string | undefined {
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    return 'redis-server is not installed (apt-get install -y redis-server); skipping the Redis token store run';
  }
  return undefined;
}

/** Starts redis-server on a free port, or on `port` (e.g. to bring a stopped one back where its clients look). */
export async function startRedis(port?: number): Promise<TestRedis> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const p = port ?? (await freePort());
    const child: ChildProcess = spawn(
      'redis-server',
      [
        '--port',
        String(p),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const started = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      const poll = setInterval(() => {
        const r = spawnSync('redis-cli', ['-p', String(p), 'ping'], { encoding: 'utf8' });
        if (r.stdout?.trim() === 'PONG') {
          clearInterval(poll);
          clearTimeout(timer);
          resolve(true);
        }
      }, 50);
      child.once('exit', () => {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!started) {
      child.kill('SIGKILL');
      if (/Address already in use/.test(out) && port === undefined) continue;
      throw new Error(`redis-server did not start: ${out.slice(0, 500)}`);
    }
    return {
      port: p,
      pause: () => child.kill('SIGSTOP'),
      resume: () => child.kill('SIGCONT'),
      stop: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGCONT');
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 3000).unref();
        }),
    };
  }
  throw new Error('redis-server: no free port after 5 attempts');
}
