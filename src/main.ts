// kapiserver's entry: parses the flags and answers --help and --version without loading the server; everything
// else (the dev cluster child, the API server) is imported only when it runs.
import './threadpool.ts';
import { readFileSync } from 'node:fs';
import { parseCli, parseOrExit, USAGE } from './cli.ts';
import { fail } from './fail.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'devcluster') {
    const { runDevClusterCli } = await import('./devcluster/cli.ts');
    await runDevClusterCli(argv.slice(1));
    return;
  }
  const cli = parseOrExit('kapiserver', () => parseCli(argv));
  if (cli.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (cli.version) {
    process.stdout.write(`kapiserver v${pkg.version}\n`);
    return;
  }
  const { serve } = await import('./serve.ts');
  await serve(cli, pkg.version);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  fail(err instanceof Error ? err.message : String(err), 1);
});
