/**
 * Where the browsers tabgate drives may go (docs/security.md, "Where a browser may go"), judged on the
 * addresses a name resolves to, for the engine's network guard to enforce on every request:
 *
 * - cloud metadata endpoints (by name or address, or a name that resolves to one) never, on any browser;
 * - a remote browser (provider, CDP URL) never reaches a private, loopback, link-local, CGNAT or
 *   unique-local address, an internal-style name (`localhost`, `*.internal`, a single label) or a name
 *   that resolves to one, nor a name this gateway cannot resolve (it cannot tell that name is public) —
 *   unless `browser.allow_private_urls`, or the host is listed in `browser.allowed_private_hosts`;
 * - the local browser may reach private addresses (a developer's localhost), only not metadata.
 *
 * Verdicts are cached briefly per host, so the guard's hot path is one Map lookup; a name being
 * resolved is resolved once, however many requests wait for it.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { HostJudge, HostVerdict } from '../../engine/index.js';
import {
  TabgateError,
  checkNavigationUrl,
  isCloudMetadataHost,
  isPrivateHost,
} from '../../protocol/index.js';

export type Resolver = (host: string) => Promise<string[]>;

export interface NetworkPolicyOptions {
  /** The browser runs elsewhere (provider, CDP URL): private addresses are refused unless allowed. */
  remote: boolean;
  /** `browser.allow_private_urls`. */
  allowPrivateUrls: boolean;
  /** `browser.allowed_private_hosts`: names or addresses a remote browser may reach though private. */
  allowedPrivateHosts: readonly string[];
  /** DNS (tests pass a fixed table); the system resolver by default. */
  resolve?: Resolver;
  /** How long a verdict is reused; 30 s by default. */
  ttlMs?: number;
}

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((answer) => answer.address);

const DNS_TIMEOUT_MS = 3_000;
const DEFAULT_TTL_MS = 30_000;
const MAX_CACHED = 4_096;

/** Host names as URLs carry them: lower-case, no trailing dot, IPv6 without brackets. */
export function normalizeHost(raw: string): string {
  const host = raw.trim().toLowerCase().replace(/\.$/, '');
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

const ALLOWED: HostVerdict = { allowed: true };

export class NetworkPolicy implements HostJudge {
  private readonly blockPrivate: boolean;
  private readonly allowedHosts: ReadonlySet<string>;
  private readonly resolve: Resolver;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, { verdict: HostVerdict; until: number }>();
  private readonly resolving = new Map<string, Promise<HostVerdict>>();

  constructor(options: NetworkPolicyOptions) {
    this.blockPrivate = options.remote && !options.allowPrivateUrls;
    this.allowedHosts = new Set(options.allowedPrivateHosts.map(normalizeHost));
    this.resolve = options.resolve ?? systemResolver;
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  }

  judge(host: string): HostVerdict | Promise<HostVerdict> {
    const cached = this.cache.get(host);
    if (cached && cached.until > Date.now()) return cached.verdict;
    const literal = this.byName(host);
    if (literal) return this.remember(host, literal);
    let pending = this.resolving.get(host);
    if (!pending) {
      pending = this.byAddresses(host).then((verdict) => {
        this.resolving.delete(host);
        return this.remember(host, verdict);
      });
      this.resolving.set(host, pending);
    }
    return pending;
  }

  /** The verdict the name alone gives (metadata names, IP literals, internal-style names), if any. */
  private byName(host: string): HostVerdict | null {
    if (isCloudMetadataHost(host)) return metadata(`${host} is a cloud metadata endpoint`);
    const mayBePrivate = !this.blockPrivate || this.allowedHosts.has(host);
    if (isIP(host)) return mayBePrivate || !isPrivateHost(host) ? ALLOWED : privateAddress(host);
    if (!mayBePrivate && isPrivateHost(host))
      return refused(`${host} is an internal name and this browser is remote`);
    return null;
  }

  private async byAddresses(host: string): Promise<HostVerdict> {
    const addresses = await this.lookup(host);
    const mayBePrivate = !this.blockPrivate || this.allowedHosts.has(host);
    if (addresses === null) {
      // A name only the browser's network knows may be anything there.
      return mayBePrivate
        ? ALLOWED
        : refused(`${host} does not resolve from the gateway, so it cannot be checked to be public`);
    }
    // The reasons never name the address: they reach the agent, which must not learn the inside of the
    // gateway's network from them.
    if (addresses.some((address) => isCloudMetadataHost(address)))
      return metadata(`${host} resolves to a cloud metadata endpoint`);
    if (!mayBePrivate && addresses.some((address) => isPrivateHost(address)))
      return refused(`${host} resolves to a private address and this browser is remote`);
    return ALLOWED;
  }

  /** The addresses of a name, or null when it does not resolve (or not within the DNS timeout). */
  private async lookup(host: string): Promise<string[] | null> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const addresses = await Promise.race([
        this.resolve(host),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), DNS_TIMEOUT_MS);
        }),
      ]);
      return addresses && addresses.length > 0 ? addresses : null;
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  private remember(host: string, verdict: HostVerdict): HostVerdict {
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value ?? '');
    this.cache.set(host, { verdict, until: Date.now() + this.ttlMs });
    return verdict;
  }
}

function metadata(reason: string): HostVerdict {
  return { allowed: false, code: 'metadata_url_blocked', reason };
}

function refused(reason: string): HostVerdict {
  return { allowed: false, code: 'private_url_blocked', reason };
}

function privateAddress(host: string): HostVerdict {
  return refused(`${host} is a private address and this browser is remote`);
}

/**
 * The whole verdict on a navigation target before any browser is involved (a provider backend asks it
 * before creating a session): `invalid_url`, `metadata_url_blocked`, `private_url_blocked`, or the URL.
 */
export async function checkNavigation(raw: string, policy: HostJudge): Promise<URL> {
  const verdict = checkNavigationUrl(raw);
  if (verdict.kind === 'invalid')
    throw new TabgateError('invalid_url', `Cannot open this URL: ${verdict.reason}.`);
  if (verdict.kind === 'metadata')
    throw new TabgateError('metadata_url_blocked', `Refused: ${verdict.reason}.`);
  if (verdict.url.href === 'about:blank') return verdict.url;
  const judged = await policy.judge(normalizeHost(verdict.url.hostname));
  if (!judged.allowed) throw new TabgateError(judged.code, `Refused: ${judged.reason}.`);
  return verdict.url;
}
