// How many kubeconfig tokens of a user a token store holds, read from outside the store: from its SQLite file (beside
// a running server, read-only) or from redis-server itself.
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';

export function kubeconfigRecordsInFile(file: string, user: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare('SELECT count(*) FROM tokens WHERE user = ?')
      .pluck()
      .get(`${user}:kubeconfig`) as number;
  } finally {
    db.close();
  }
}

export function kubeconfigRecordsInRedis(port: number, user: string): number {
  const key = `kubesphere:user:${user}:kubeconfig:tokens`;
  return Number(
    spawnSync('redis-cli', ['-p', String(port), 'zcard', key], { encoding: 'utf8' }).stdout.trim(),
  );
}
