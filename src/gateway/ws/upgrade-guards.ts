/**
 * The ordered checks before a controller socket is accepted (docs/protocol.md "GET /v1/browser-control/ws"),
 * each failing with its own error code (and so its HTTP status, from the error table). Nothing here
 * consumes the ticket: that is the last step, and only after every other check passed, so a refused
 * request leaves its ticket usable.
 */
import type { IncomingMessage } from 'node:http';
import { CONTROLLER_SUBPROTOCOL, TICKET_SUBPROTOCOL_PREFIX, type ErrorCode } from '../../protocol/index.js';
import type { HostGuard } from '../guards/host.js';
import type { OriginGuard } from '../guards/origin.js';

/** A refusal names its code and says, for a person, what was wrong (never the ticket itself). */
export type UpgradeVerdict = { ok: true; ticket: string } | { ok: false; code: ErrorCode; reason: string };

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
  if (!guards.featureEnabled())
    return { ok: false, code: 'browser_control_disabled', reason: 'Browser control is turned off.' };
  const offered = offeredSubprotocols(req);
  const tickets = offered
    .filter((p) => p.startsWith(TICKET_SUBPROTOCOL_PREFIX))
    .map((p) => p.slice(TICKET_SUBPROTOCOL_PREFIX.length));
  // The protocol answers every subprotocol mistake as invalid_ticket: a client learns nothing about
  // which part of its offer was wrong that it could not read in the protocol.
  if (!offered.includes(CONTROLLER_SUBPROTOCOL)) {
    return {
      ok: false,
      code: 'invalid_ticket',
      reason: `The subprotocol ${CONTROLLER_SUBPROTOCOL} was not offered.`,
    };
  }
  if (tickets.length !== 1)
    return { ok: false, code: 'invalid_ticket', reason: 'Offer exactly one ticket subprotocol.' };
  if (queryCarriesTicket(req.url, tickets))
    return {
      ok: false,
      code: 'invalid_ticket',
      reason: 'The ticket goes in a subprotocol, never in the URL.',
    };
  if (!guards.origin.allows(req.headers.origin))
    return { ok: false, code: 'forbidden_origin', reason: 'This Origin may not open a controller socket.' };
  if (!guards.host.allows(req.headers.host))
    return { ok: false, code: 'forbidden_host', reason: 'Reach the gateway by its loopback address.' };
  return { ok: true, ticket: tickets[0] as string };
}
