/**
 * The navigation policy of browsers that are not on the user's machine (cloud providers, remote CDP, a
 * CDP URL override): they must not be pointed at the user's own network. The string checks live in
 * protocol (`checkNavigationUrl`); this adds what needs node: names that *resolve* to private addresses.
 * A DNS failure is not private: the remote browser resolves on its own network, and will fail there.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { TabgateError, checkNavigationUrl, isCloudMetadataHost, isPrivateHost } from '../protocol/index.js';

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((answer) => answer.address);

const DNS_TIMEOUT_MS = 3_000;

/** True when any address the name resolves to is private or a metadata endpoint. */
export async function resolvesToPrivate(host: string, resolve: Resolver = systemResolver): Promise<boolean> {
  return (await classifyResolved(host, resolve)) !== 'public';
}

async function classifyResolved(host: string, resolve: Resolver): Promise<'public' | 'private' | 'metadata'> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return isCloudMetadataHost(bare) ? 'metadata' : isPrivateHost(bare) ? 'private' : 'public';
  let addresses: string[];
  let timer: NodeJS.Timeout | undefined;
  try {
    addresses = await Promise.race([
      resolve(bare),
      new Promise<string[]>((resolveEmpty) => {
        timer = setTimeout(() => resolveEmpty([]), DNS_TIMEOUT_MS);
      }),
    ]);
  } catch {
    return 'public';
  } finally {
    clearTimeout(timer);
  }
  if (addresses.some((address) => isCloudMetadataHost(address))) return 'metadata';
  return addresses.some((address) => isPrivateHost(address)) ? 'private' : 'public';
}

/**
 * Throws `invalid_url`, `metadata_url_blocked` (always) or `private_url_blocked` (unless allowed) for a
 * navigation target of a remote browser; returns the parsed URL otherwise.
 */
export async function checkRemoteNavigation(
  raw: string,
  options: { allowPrivateUrls: boolean; resolve?: Resolver },
): Promise<URL> {
  const verdict = checkNavigationUrl(raw);
  if (verdict.kind === 'invalid') throw new TabgateError('invalid_url', verdict.reason);
  if (verdict.kind === 'metadata') throw new TabgateError('metadata_url_blocked', verdict.reason);
  const { url } = verdict;
  if (url.href === 'about:blank') return url;
  const blocked = (why: string) =>
    new TabgateError(
      'private_url_blocked',
      `${url.hostname} ${why}; remote browsers may not open private or internal addresses`,
    );
  if (verdict.private) {
    if (options.allowPrivateUrls) return url;
    throw blocked('is a private or internal address');
  }
  const resolved = await classifyResolved(url.hostname, options.resolve ?? systemResolver);
  if (resolved === 'metadata')
    throw new TabgateError('metadata_url_blocked', `${url.hostname} resolves to a cloud metadata endpoint`);
  if (resolved === 'private' && !options.allowPrivateUrls) throw blocked('resolves to a private address');
  return url;
}
