/**
 * The ordered checks before a controller socket is accepted (docs/protocol.md "GET /v1/browser-control/ws"),
 * each failing with its own HTTP status. Nothing here consumes the ticket: that is the last step, and
 * only after every other check passed, so a refused request leaves its ticket usable.
 */
import type { IncomingMessage } from 'node:http';
import { CONTROLLER_SUBPROTOCOL, TICKET_SUBPROTOCOL_PREFIX } from '../../protocol/index.js';
import type { HostGuard } from '../guards/host.js';
import type { OriginGuard } from '../guards/origin.js';

export type UpgradeVerdict =
  { ok: true; ticket: string } | { ok: false; status: 401 | 403 | 404; reason: string };

export function offeredSubprotocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  if (!header) return [];
  return header
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

function queryCarriesTicket(url: string | undefined, tickets: string[]): boolean {
  const q = url?.indexOf('?') ?? -1;
  if (!url || q === -1) return false;
  const query = url.slice(q + 1);
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(query);
  } catch {
    return true;
  }
  for (const [key, value] of params) {
    if (key.toLowerCase().includes('ticket')) return true;
    if (tickets.some((ticket) => ticket.length > 0 && (value.includes(ticket) || key.includes(ticket))))
      return true;
  }
  return false;
}

export function checkUpgrade(
  req: IncomingMessage,
  guards: { featureEnabled: () => boolean; host: HostGuard; origin: OriginGuard },
): UpgradeVerdict {
  if (!guards.featureEnabled()) return { ok: false, status: 404, reason: 'browser control is disabled' };
  const offered = offeredSubprotocols(req);
  const tickets = offered
    .filter((p) => p.startsWith(TICKET_SUBPROTOCOL_PREFIX))
    .map((p) => p.slice(TICKET_SUBPROTOCOL_PREFIX.length));
  if (!offered.includes(CONTROLLER_SUBPROTOCOL)) {
    return { ok: false, status: 401, reason: `subprotocol ${CONTROLLER_SUBPROTOCOL} not offered` };
  }
  if (tickets.length !== 1)
    return { ok: false, status: 401, reason: 'exactly one ticket subprotocol is required' };
  if (queryCarriesTicket(req.url, tickets))
    return { ok: false, status: 401, reason: 'ticket in the query string' };
  if (!guards.origin.allows(req.headers.origin))
    return { ok: false, status: 403, reason: 'origin not allowed' };
  if (!guards.host.allows(req.headers.host)) return { ok: false, status: 403, reason: 'host not allowed' };
  return { ok: true, ticket: tickets[0] as string };
}
