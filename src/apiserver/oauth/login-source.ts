// The source of a login attempt, for per-source throttling. It is the TCP peer address: X-Forwarded-For and similar
// headers are never trusted (kapiserver has no trusted-proxy setting; behind a proxy every login shares the proxy's
// address, which throttles more, never less). IPv6 sources count per /64, the block one subscriber gets, so an
// attacker cannot rotate through addresses of their own; IPv4-mapped IPv6 addresses count as IPv4.
import { isIPv4, isIPv6 } from 'node:net';

export function loginSource(remoteAddress: string | undefined): string {
  const addr = remoteAddress ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  if (mapped) return mapped[1];
  if (isIPv4(addr) || !isIPv6(addr)) return addr || 'unknown';
  return `${ipv6Prefix64(addr)}::/64`;
}

/** The first four groups of an IPv6 address (expanding `::`), lowercase, without leading zeros. */
function ipv6Prefix64(addr: string): string {
  const [head, tail = ''] = addr.split('%')[0].toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = addr.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':');
}
