/**
 * The peer a limit is counted against. Every loopback source (all of `127.0.0.0/8`, `::1`, and their
 * IPv4-mapped forms) is one peer: any local process can bind 127.0.0.2, 127.0.0.3, … as its source, so
 * counting those apart would hand it a hundred budgets.
 */
export const LOOPBACK_PEER = 'loopback';

export function peerOf(remoteAddress: string | undefined): string {
  if (!remoteAddress) return 'unknown';
  if (remoteAddress === '127.0.0.1' || remoteAddress === '::1') return LOOPBACK_PEER;
  const address = remoteAddress.toLowerCase();
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') ? LOOPBACK_PEER : v4;
}
