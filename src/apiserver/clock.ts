// The time the token stores, the lockout and the login throttling go by: the real clock in the server, a clock the
// test advances in tests (so expiry and lockout windows are checked without waiting for them to pass).

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
