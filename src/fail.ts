/** Prints one line to stderr and exits: for errors a person must read (usage, bad config, a held data directory). */
export function fail(message: string, code = 2): never {
  process.stderr.write(`kapiserver: ${message}\n`);
  process.exit(code);
}
