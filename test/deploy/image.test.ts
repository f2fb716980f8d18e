// deploy/Dockerfile cannot be built here (no container engine), so this checks what can be checked: its shape
// (multi-stage, Node LTS, production dependencies only, non-root, no HEALTHCHECK), that every file it copies exists,
// and that the compiled code with the production dependency tree alone (what `npm ci --omit=dev` installs) runs the
// command it starts.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from '../helpers/process.ts';

const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));

const work = mkdtempSync(join(tmpdir(), 'kapiserver-image-'));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

test('the Dockerfile is multi-stage on a Node LTS image, installs production dependencies only, runs as non-root', () => {
  const froms = instructions.filter((l) => /^FROM\s/i.test(l));
  assert.ok(froms.length >= 2, 'multi-stage');
  const arg = /^ARG NODE_IMAGE=node:(\d+)[-.\w]*$/m.exec(dockerfile);
  assert.ok(arg, 'base image is an official node image');
  assert.equal(Number(arg[1]) % 2, 0, 'even Node majors are the LTS lines');
  assert.ok(Number(arg[1]) >= 20);
  assert.ok(instructions.some((l) => /npm ci .*--omit=dev/.test(l)));
  assert.ok(!instructions.some((l) => /^HEALTHCHECK/i.test(l)), 'no HEALTHCHECK: Kubernetes probes do it');
  const users = instructions.filter((l) => /^USER\s/i.test(l));
  assert.equal(users.length, 1);
  const uid = users[0].split(/\s+/)[1].split(':')[0];
  assert.match(uid, /^\d+$/, 'numeric uid, so runAsNonRoot can verify it');
  assert.notEqual(Number(uid), 0);
  // The final stage is the one that runs: USER comes after its FROM.
  assert.ok(instructions.lastIndexOf(users[0]) > instructions.lastIndexOf(froms[froms.length - 1]));
});

test('every file the Dockerfile copies from the build context exists', () => {
  const copies = instructions.filter((l) => /^COPY\s/i.test(l) && !/--from=/.test(l));
  assert.ok(copies.length >= 3);
  for (const c of copies) {
    const args = c
      .split(/\s+/)
      .slice(1)
      .filter((a) => !a.startsWith('--'));
    for (const src of args.slice(0, -1)) assert.ok(existsSync(join(ROOT, src)), `${src} (from: ${c})`);
  }
  // The build context filter (deploy/Dockerfile.dockerignore) lets every copied path through.
  const ignore = readFileSync(join(ROOT, 'deploy', 'Dockerfile.dockerignore'), 'utf8').split('\n');
  for (const c of copies) {
    const args = c
      .split(/\s+/)
      .slice(1)
      .filter((a) => !a.startsWith('--'));
    for (const src of args.slice(0, -1)) {
      assert.ok(
        ignore.includes(`!${src}`) || ignore.includes(`!${src}/`),
        `${src} is excluded from the context`,
      );
    }
  }
  const entry = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile);
  assert.ok(entry);
  const [node, script] = JSON.parse(entry[1]) as string[];
  assert.equal(node, 'node');
  assert.ok(existsSync(join(ROOT, script.replace(/^\/app\//, ''))));
});

/** Top-level packages `npm ci --omit=dev` installs, read from the lock file. */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([path, meta]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && !meta.dev)
    .map(([path]) => path);
}

test('the production dependency tree alone starts kapiserver and serves /healthz', {
  timeout: 180_000,
}, async (t) => {
  // Image layout: /app/{package.json,bin,dist,node_modules}, dist/ compiled as the build stage does. Packages are
  // hard-linked (same content, no network); dev-only packages (typescript, tsx) are absent, so an import of one
  // from the compiled code fails here as it would in the image.
  const app = join(work, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  for (const p of ['package.json', 'bin']) cpSync(join(ROOT, p), join(app, p), { recursive: true });
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--out-dir', join(app, 'dist')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(build.status, 0, build.stderr);
  let linked = 0;
  for (const pkg of productionPackages()) {
    const from = join(ROOT, pkg);
    if (!existsSync(from)) continue; // optional packages of other platforms
    mkdirSync(dirname(join(app, pkg)), { recursive: true });
    const r = spawnSync('cp', ['-al', from, join(app, pkg)]);
    if (r.status !== 0) cpSync(from, join(app, pkg), { recursive: true });
    linked++;
  }
  assert.ok(linked > 20);
  assert.ok(!existsSync(join(app, 'node_modules', 'typescript')), 'dev dependencies are left out');
  assert.ok(!existsSync(join(app, 'node_modules', 'tsx')), 'no TypeScript loader at run time');
  if (!existsSync(join(ROOT, 'src', 'devcluster', 'index.ts'))) {
    t.skip('the embedded dev cluster is not in the tree yet');
    return;
  }

  const version = spawnSync(process.execPath, ['bin/kapiserver.mjs', '--version'], {
    cwd: app,
    encoding: 'utf8',
  });
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, /^kapiserver v\d+\.\d+\.\d+/);

  const dataDir = join(work, 'data');
  const child = spawn(
    process.execPath,
    [
      'bin/kapiserver.mjs',
      '--log-level=info', // the test runner exports KAPISERVER_LOG_LEVEL=silent; the listening line is needed
      `--data-dir=${dataDir}`,
      '--bind-address=127.0.0.1',
      '--port=0',
      '--secure-port=0',
      '--devcluster-port=0',
    ],
    {
      cwd: app,
      env: { ...process.env, NODE_ENV: 'production', KAPISERVER_ADMIN_PASSWORD: 'Image-Test-Pw1' },
    },
  );
  children.push(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start in 120 s\n${out}\n${err}`)), 120_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /"port":(\d+).*"kapiserver listening"|"kapiserver listening".*"port":(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1] ?? m[2]));
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code ?? signal} before listening\n${out}\n${err}`));
    });
  });
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.equal(res.status, 200);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0, err);
});
