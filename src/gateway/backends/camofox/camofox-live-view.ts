/**
 * Where a person can watch Camofox's browser: the session's `live_url`. The owner's
 * `browser.camofox.vnc_url` wins; otherwise Camofox says where its noVNC page is, in `GET /health`
 * (`vncPort`) or, from Camofox 1.13, in `GET /vnc/status` (`novncPort`, `path`). That page is served by
 * the Camofox host, so the address is Camofox's own host with that port. Only an http(s) address is
 * ever shown (it becomes a link on the dashboard); a failed look-up shows none and fails nothing.
 */
import type { CamofoxClient, CamofoxReply } from './camofox-client.js';

const LOOKUP_TIMEOUT_MS = 5_000;

/** The configured address, if it is an http(s) one. */
export function webAddress(raw: string | undefined): string | undefined {
  if (!raw?.trim()) return undefined;
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** `http(s)://<Camofox's host>:<port><path>`, for a port Camofox reported. */
export function liveViewAt(camofoxUrl: string, port: unknown, path = ''): string | undefined {
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  let base: URL;
  try {
    base = new URL(camofoxUrl);
  } catch {
    return undefined;
  }
  const origin = new URL(base.origin);
  origin.port = String(port);
  // Only a path on that host: never `//elsewhere`, `/\elsewhere` (a URL parser reads both as a host)
  // or a full URL.
  const onHost = path.startsWith('/') && !path.startsWith('//') && !path.includes('\\');
  return webAddress((onHost ? new URL(path, origin) : origin).href);
}

/** Asks Camofox where its live view is; undefined when it has none or does not answer. */
export async function discoverLiveView(
  client: CamofoxClient,
  camofoxUrl: string,
): Promise<string | undefined> {
  const ask = (path: string): Promise<CamofoxReply | undefined> =>
    client.request('GET', path, undefined, LOOKUP_TIMEOUT_MS).catch(() => undefined);
  const health = await ask('/health');
  const fromHealth = health?.status === 200 ? liveViewAt(camofoxUrl, health.body.vncPort) : undefined;
  if (fromHealth) return fromHealth;
  const status = await ask('/vnc/status');
  if (status?.status !== 200) return undefined;
  const path = typeof status.body.path === 'string' ? status.body.path : '/vnc.html';
  return liveViewAt(camofoxUrl, status.body.novncPort, path);
}
