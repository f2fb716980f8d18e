// The /kapis routes registered with the app, so the fallback can tell a path no route matches (the fallback's to
// serve) from a path a route matches with another method (405, as go-restful answers before KubeSphere's fallback).
import type { FastifyInstance } from 'fastify';

interface Pattern {
  method: string;
  segments: string[];
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function matches(pattern: string[], path: string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p === '*') return true;
    if (i >= path.length) return false;
    if (p.startsWith(':') ? path[i] === '' : p !== path[i]) return false;
  }
  return pattern.length === path.length;
}

export class RouteTable {
  private readonly patterns: Pattern[] = [];

  /** Records every route registered from now on whose URL starts with `prefix` (except the fallback's own). */
  track(app: FastifyInstance, prefix: string, own: string): void {
    app.addHook('onRoute', (route) => {
      if (!route.url.startsWith(prefix) || route.url === own) return;
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
        this.patterns.push({ method, segments: split(route.url) });
      }
    });
  }

  /** The methods of the routes matching `path` (decoded segments; no query). */
  methodsFor(path: string): Set<string> {
    const segments = split(path);
    const out = new Set<string>();
    for (const p of this.patterns) if (matches(p.segments, segments)) out.add(p.method);
    return out;
  }
}
