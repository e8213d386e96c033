/**
 * Which URLs a browser may be sent to. Shared by the router (controller-bound sessions), the engine and
 * the extension, so every backend refuses the same things the same way. Pure string checks: names that
 * only resolve to private addresses are caught by the backends that can resolve them.
 */

export type UrlVerdict =
  | { kind: 'ok'; url: URL; private: boolean }
  | { kind: 'invalid'; reason: string }
  | { kind: 'metadata'; reason: string };

/**
 * Cloud metadata endpoints, by address and by name (AWS, ECS, GCP, Azure, Alibaba): the instance's
 * credentials on a cloud VM. Also what the extension's network rule lists, since it cannot resolve names.
 */
export const CLOUD_METADATA_HOSTS: readonly string[] = [
  '169.254.169.254',
  '169.254.170.2',
  'fd00:ec2::254',
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  '100.100.100.200',
];

const METADATA_HOSTS = new Set(CLOUD_METADATA_HOSTS);

function bareHost(url: URL): string {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

// No node:net here: this module also runs in the extension's service worker. Hosts reach these checks
// already normalised by WHATWG URL parsing (`0xa9.254.169.254` → `169.254.169.254`).
function ipv4Octets(host: string): number[] | null {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return null;
  const octets = host.split('.').map(Number);
  return octets.every((octet) => octet <= 255) ? octets : null;
}

const isIpv6 = (host: string) => host.includes(':');

/** IPv4-mapped IPv6 (`::ffff:a.b.c.d` or its hex form) judged as the IPv4 address it carries. */
function unmapIpv6(host: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host);
  if (dotted?.[1]) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(host);
  if (hex?.[1] && hex[2]) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return host;
}

export function isCloudMetadataHost(rawHost: string): boolean {
  const host = unmapIpv6(rawHost.toLowerCase());
  return METADATA_HOSTS.has(host);
}

/** Loopback, RFC 1918, link-local, CGNAT, unique-local IPv6, `localhost`, `*.local`, `*.internal`. */
export function isPrivateHost(rawHost: string): boolean {
  const host = unmapIpv6(rawHost.toLowerCase());
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (
    host.endsWith('.local') ||
    host.endsWith('.internal') ||
    host.endsWith('.lan') ||
    host.endsWith('.home.arpa')
  ) {
    return true;
  }
  const v4 = ipv4Octets(host);
  if (v4) {
    const [a = 0, b = 0] = v4;
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (isIpv6(host)) {
    return host === '::1' || host === '::' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
  }
  // A single-label name (`intranet`) only resolves on a private network.
  return !host.includes('.');
}

/**
 * Judges a navigation target: only http(s) and about:blank are URLs a browser tool may open; cloud
 * metadata endpoints never. `private` tells remote backends to refuse unless allowed.
 */
export function checkNavigationUrl(raw: string): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'invalid', reason: `${JSON.stringify(raw.slice(0, 200))} is not an absolute URL` };
  }
  if (url.href === 'about:blank') return { kind: 'ok', url, private: false };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      kind: 'invalid',
      reason: `the ${url.protocol} scheme is not allowed; use http(s) or about:blank`,
    };
  }
  const host = bareHost(url);
  if (isCloudMetadataHost(host)) return { kind: 'metadata', reason: `${host} is a cloud metadata endpoint` };
  return { kind: 'ok', url, private: isPrivateHost(host) };
}
