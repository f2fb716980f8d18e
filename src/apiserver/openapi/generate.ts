// `npm run gen:swagger`: regenerates the two checked-in swagger documents. `--check` exits 1 when they differ.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCrdOpenApi } from './crd-spec.ts';
import { buildKsOpenApi, PKG_VERSION } from './ks-spec.ts';
import { CRD_SPEC_FILE, KS_SPEC_FILE } from './spec-files.ts';

export { CRD_SPEC_FILE, KS_SPEC_FILE };

export async function generatedDocuments(): Promise<{ file: string; text: string }[]> {
  return [
    { file: KS_SPEC_FILE, text: `${JSON.stringify(await buildKsOpenApi(), null, 2)}\n` },
    { file: CRD_SPEC_FILE, text: `${JSON.stringify(buildCrdOpenApi(PKG_VERSION), null, 2)}\n` },
  ];
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const { file, text } of await generatedDocuments()) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {}
    if (current === text) continue;
    if (check) {
      stale++;
      console.error(`${file} is out of date: run npm run gen:swagger`);
    } else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      console.log(`wrote ${file}`);
    }
  }
  process.exitCode = stale > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
