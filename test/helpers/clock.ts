// A clock the test moves: expiry, failure windows and lockouts are checked by advancing it, never by sleeping.
import type { Clock } from '../../src/apiserver/clock.ts';

export class FakeClock implements Clock {
  /** Starts at the real time: stores that also hand expiry times to Redis (PEXPIREAT) get times in the future. */
  constructor(private ms = Date.now()) {}

  now(): number {
    return this.ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
