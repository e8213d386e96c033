/**
 * Cloud metadata endpoints are blocked at the network layer of the user's own browser while a tab is
 * shared: declarativeNetRequest session rules refuse every request to them, of every kind
 * (navigations, frames, subresources, fetches, WebSockets) and from every tab, so a tab the shared page
 * opens is covered from its first request, before it even joins the share. An extension has no DNS, so
 * the rules judge what a URL names: the metadata names and addresses (IPv4 also in its IPv4-mapped
 * IPv6 form); a name of someone else's that resolves to a metadata address is not seen here.
 *
 * Session rules outlive a worker restart but not a browser restart, which is why the worker installs
 * the rules again whenever it wakes with a share (service-worker.ts), before the controller reconnects.
 */
import { CLOUD_METADATA_HOSTS } from '../../protocol/index.js';

interface Rule {
  id: number;
  priority: number;
  action: { type: 'block' };
  condition: { regexFilter: string; isUrlFilterCaseSensitive: boolean; resourceTypes: string[] };
}

interface DeclarativeNetRequest {
  updateSessionRules(options: { removeRuleIds?: number[]; addRules?: Rule[] }): Promise<void>;
}

/** tabgate's session rules: one per metadata host (a single regex over all of them is over Chrome's 2 KB). */
const FIRST_RULE_ID = 1;

export const RESOURCE_TYPES = [
  'main_frame',
  'sub_frame',
  'stylesheet',
  'script',
  'image',
  'font',
  'object',
  'xmlhttprequest',
  'ping',
  'csp_report',
  'media',
  'websocket',
  'webtransport',
  'webbundle',
  'other',
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How each metadata host can appear as a URL's host, as regular expression alternatives. */
function hostForms(host: string): string[] {
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
    return [escape(host), `\\[::ffff:${hex(a, b)}:${hex(c, d)}\\]`];
  }
  if (host.includes(':')) return [`\\[${escape(host)}\\]`];
  return [`${escape(host)}\\.?`];
}

/** A URL to one host: any scheme, optional userinfo, the host, an optional port, then its end. */
export function metadataUrlPattern(host: string): string {
  return `^[a-z][a-z0-9+.-]*://([^/?#@]*@)?(${hostForms(host).join('|')})(:[0-9]*)?([/?#]|$)`;
}

/** Above every site rule (site-rules.ts): no grant or allow rule can reopen a metadata address. */
export const METADATA_RULE_PRIORITY = 10;

const RULES: Rule[] = CLOUD_METADATA_HOSTS.map((host, index) => ({
  id: FIRST_RULE_ID + index,
  priority: METADATA_RULE_PRIORITY,
  action: { type: 'block' },
  condition: {
    regexFilter: metadataUrlPattern(host),
    isUrlFilterCaseSensitive: false,
    resourceTypes: RESOURCE_TYPES,
  },
}));
const RULE_IDS = RULES.map((rule) => rule.id);

function api(): DeclarativeNetRequest {
  return (globalThis as unknown as { chrome: { declarativeNetRequest: DeclarativeNetRequest } }).chrome
    .declarativeNetRequest;
}

/** Installs the rules (again: they replace themselves). Throws when the browser refuses one. */
export async function blockMetadata(): Promise<void> {
  await api().updateSessionRules({ removeRuleIds: RULE_IDS, addRules: RULES });
}

/** Removes the rules when the share ends. Never throws. */
export async function unblockMetadata(): Promise<void> {
  await api()
    .updateSessionRules({ removeRuleIds: RULE_IDS })
    .catch(() => undefined);
}
