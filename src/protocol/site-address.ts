/**
 * URLs and site patterns parsed one way everywhere (gateway, engine, extension), so a grant never means
 * more in one place than in another. WHATWG URL does the heavy lifting: IDN to punycode, lower case,
 * default ports dropped, IPv4 written in decimal, octal or hex turned into dotted quads. On top of it:
 * a trailing dot is dropped, IPv4-mapped IPv6 is judged as the IPv4 address it carries, userinfo and
 * every scheme but http(s) are refused. Patterns are compared label by label, never as string prefixes.
 */

/** A URL that names a site a frame may be moved to. */
export interface SiteAddress {
  /** `https:` or `http:`. */
  scheme: 'http:' | 'https:';
  /** Canonical host: lower case, punycode, no trailing dot, IPv6 without brackets, mapped IPv4 unmapped. */
  host: string;
  /** The port, the scheme's default filled in. */
  port: number;
  /** `scheme://host[:port]` as a browser writes the origin (brackets around IPv6, default port left out). */
  origin: string;
}

export type SiteAddressResult = { ok: true; site: SiteAddress } | { ok: false; reason: string };

const DEFAULT_PORTS = { 'http:': 80, 'https:': 443 } as const;

/** IPv4-mapped IPv6 as WHATWG URL writes it (`::ffff:7f00:1`), or with a dotted tail. */
function unmapIpv4(host: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (dotted?.[1]) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!hex?.[1] || !hex[2]) return host;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The canonical form of a parsed URL's hostname. */
export function canonicalHost(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = unmapIpv4(host.slice(1, -1));
  return host.replace(/\.+$/, '');
}

function originOf(scheme: string, host: string, port: number): string {
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const isDefault = DEFAULT_PORTS[scheme as keyof typeof DEFAULT_PORTS] === port;
  return `${scheme}//${shownHost}${isDefault ? '' : `:${port}`}`;
}

function describe(raw: string): string {
  return JSON.stringify(raw.length > 120 ? `${raw.slice(0, 120)}…` : raw);
}

/** A URL parsed for the site check: only http(s), with a host, without userinfo. */
export function parseSiteUrl(raw: string): SiteAddressResult {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `${describe(raw)} is not an absolute URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `the ${url.protocol} scheme never names a site a frame may open` };
  }
  // `https://bank.example@evil.tld` goes to evil.tld; a person reading it sees bank.example.
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'a URL with a user name or password in it is refused' };
  }
  const host = canonicalHost(url.hostname);
  if (host === '') return { ok: false, reason: `${describe(raw)} has no host` };
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  return { ok: true, site: { scheme: url.protocol, host, port, origin: originOf(url.protocol, host, port) } };
}

/**
 * A rule of `sites.allow`, `sites.deny` or a grant:
 * - an exact origin, `https://mail.example.com` or `http://localhost:8080` (scheme, host and port);
 * - a host, `example.com`: that host only, on http and https, any port;
 * - a host pattern, `*.example.com` (optionally with a scheme): every subdomain of example.com at any
 *   depth, never example.com itself and never `example.com.evil.tld`.
 */
export type SitePattern =
  | { kind: 'origin'; origin: string; scheme: 'http:' | 'https:'; host: string; port: number }
  | { kind: 'host'; host: string; scheme?: 'http:' | 'https:' }
  | { kind: 'subdomains'; parent: string; scheme?: 'http:' | 'https:' };

export type SitePatternResult = { ok: true; pattern: SitePattern } | { ok: false; reason: string };

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** Parses one rule as a person writes it; anything looser than the three forms above is refused. */
export function parseSitePattern(raw: string): SitePatternResult {
  const text = raw.trim();
  const fail = (why: string): SitePatternResult => ({ ok: false, reason: `${describe(raw)}: ${why}` });
  if (text === '') return fail('an empty site');
  const schemeMatch = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text);
  const scheme = schemeMatch?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https')
    return fail('only http:// and https:// sites can be allowed or denied');
  const rest = schemeMatch ? text.slice(schemeMatch[0].length) : text;
  const wildcard = rest.startsWith('*.');
  const hostPart = wildcard ? rest.slice(2) : rest;
  if (hostPart.includes('*')) return fail('a * may only stand first, as in *.example.com');
  if (/[/?#@\\]/.test(hostPart.replace(/\/$/, '')))
    return fail('write an origin or a host (https://example.com, example.com), without a path or user name');
  const parsed = parseSiteUrl(`${scheme ?? 'https'}://${hostPart.replace(/\/$/, '')}`);
  if (!parsed.ok) return fail(parsed.reason);
  const { host, port } = parsed.site;
  const hasPort = /:\d+$/.test(hostPart.replace(/\/$/, '')) && !hostPart.endsWith(']');
  const schemeOf = scheme === undefined ? undefined : parsed.site.scheme;
  if (wildcard) {
    if (IPV4.test(host) || host.includes(':')) return fail('an IP address has no subdomains');
    if (hasPort) return fail('*. patterns match any port; leave the port out');
    // `*.com` would allow half the web; a pattern must name a registrable-looking parent.
    if (!host.includes('.')) return fail('a *. pattern needs a parent of two labels or more');
    return { ok: true, pattern: { kind: 'subdomains', parent: host, scheme: schemeOf } };
  }
  if (schemeOf !== undefined) {
    return {
      ok: true,
      pattern: { kind: 'origin', origin: parsed.site.origin, scheme: schemeOf, host, port },
    };
  }
  if (hasPort) return fail('write a port only with a scheme, as in http://localhost:8080');
  return { ok: true, pattern: { kind: 'host', host } };
}

/** Whether a host is `parent` or lies below it, label by label. */
export function isHostWithin(host: string, parent: string): boolean {
  return host === parent || host.endsWith(`.${parent}`);
}

export function matchesPattern(site: SiteAddress, pattern: SitePattern): boolean {
  switch (pattern.kind) {
    case 'origin':
      return site.scheme === pattern.scheme && site.host === pattern.host && site.port === pattern.port;
    case 'host':
      return site.host === pattern.host && (pattern.scheme === undefined || site.scheme === pattern.scheme);
    case 'subdomains':
      return (
        site.host.endsWith(`.${pattern.parent}`) &&
        (pattern.scheme === undefined || site.scheme === pattern.scheme)
      );
  }
}

/** A pattern written back the way it is shown to people and stored. */
export function formatPattern(pattern: SitePattern): string {
  switch (pattern.kind) {
    case 'origin':
      return pattern.origin;
    case 'host':
      return pattern.host;
    case 'subdomains':
      return `${pattern.scheme ? `${pattern.scheme}//` : ''}*.${pattern.parent}`;
  }
}
