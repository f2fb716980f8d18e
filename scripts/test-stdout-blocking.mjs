// Loaded into every test process by scripts/run-tests.mjs. Each test file runs in a child process that reports its
// results to the runner over a pipe; with --test-force-exit, Node 22+ can exit the child while report frames still
// wait in that pipe, so the runner silently reports fewer tests than ran (nodejs/node#64833; seen here on Node 24:
// one file reported 29 of its 71 tests). A blocking stdout writes every frame before the exit.
// Only the test file's own process: processes it starts with the same flags (the dev cluster child) keep theirs.
if (process.env.NODE_TEST_CONTEXT && process.argv[1]?.endsWith('.test.ts'))
  process.stdout._handle?.setBlocking?.(true);
