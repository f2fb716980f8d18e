// Readiness: named checks that must all pass before /readyz answers 200 (orchestrator reachable, caches synced, ...).

export type Check = () => boolean | Promise<boolean>;

export class Readiness {
  private readonly checks = new Map<string, Check>();

  register(name: string, check: Check): void {
    this.checks.set(name, check);
  }

  async evaluate(): Promise<{ ready: boolean; results: { name: string; ok: boolean }[] }> {
    const results = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          return { name, ok: await check() };
        } catch {
          return { name, ok: false };
        }
      }),
    );
    return { ready: results.every((r) => r.ok), results };
  }
}
