/**
 * The Host check against DNS rebinding: a page on evil.example that resolves its name to 127.0.0.1 still
 * sends `Host: evil.example`, so only the loopback names of the bound address are accepted. Runs on every
 * HTTP route and on the controller socket.
 */
import { isIP } from 'node:net';

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || /^127\./.test(address) || address.toLowerCase() === 'localhost';
}

/** The Host header values that name this gateway. */
export function allowedHostsFor(boundAddress: string, port: number, extra: readonly string[]): Set<string> {
  const hosts = new Set<string>();
  const hostPart = isIP(boundAddress) === 6 ? `[${boundAddress}]` : boundAddress;
  hosts.add(`${hostPart}:${port}`.toLowerCase());
  if (isLoopbackAddress(boundAddress)) {
    hosts.add(`localhost:${port}`);
  } else {
    // Bound beyond loopback, the user names the hosts clients may use (gateway.allowed_hosts).
    for (const host of extra) hosts.add(host.toLowerCase());
    if (boundAddress === '0.0.0.0' || boundAddress === '::') {
      hosts.add(`127.0.0.1:${port}`);
      hosts.add(`localhost:${port}`);
      hosts.add(`[::1]:${port}`);
    }
  }
  return hosts;
}

export class HostGuard {
  constructor(private readonly allowed: ReadonlySet<string>) {}

  allows(hostHeader: string | undefined): boolean {
    return hostHeader !== undefined && this.allowed.has(hostHeader.toLowerCase());
  }
}
