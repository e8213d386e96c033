/**
 * The loud warning when the gateway listens beyond loopback: anyone who can reach the port and holds
 * the API key (or a pairing token) drives browsers through it, and the traffic is plain HTTP unless a
 * TLS proxy sits in front (docs/security.md says how).
 */
import type { Logger } from '../../log/logger.js';

export function isLoopbackBind(address: string): boolean {
  const a = address.toLowerCase();
  return a === '::1' || a === 'localhost' || /^127\./.test(a) || /^::ffff:127\./.test(a);
}

/** Logs the warning and returns true when the bound address is not loopback. */
export function warnIfExposed(address: string, port: number, log: Logger): boolean {
  if (isLoopbackBind(address)) return false;
  log.warn(
    'GATEWAY EXPOSED BEYOND LOOPBACK: reachable from other machines over plain HTTP; put a TLS proxy in front and list its names in gateway.allowed_hosts (docs/security.md)',
    { address, port },
  );
  return true;
}
