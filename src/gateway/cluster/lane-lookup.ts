/**
 * Registration tickets and lane reads, both in Redis: a ticket minted on one node is consumed on
 * whichever node the socket reaches (exactly one winner), and every call reads its lane from Redis
 * before routing.
 */
import { randomBytes } from 'node:crypto';
import { TICKET_BYTES, TICKET_TTL_SECONDS } from '../../protocol/index.js';
import type { LaneState } from '../broker/controller-broker.js';
import { sessionLookupKey, type ControllerScope, type LaneQuery } from '../broker/scope.js';
import type { ConsumeOutcome, MintedTicket } from '../broker/tickets.js';
import { mayReceiveSecrets } from '../secrets/index.js';
import { laneKeysOf, lookupSlot, ticketKey } from './keys.js';
import * as lua from './lua.js';
import type { RedisLink } from './redis-link.js';
import { runOrRefuse } from './redis-failures.js';
import { scopeOf } from './scope-from-redis.js';

const EMPTY_LANE: LaneState = { registered: false, controllers: [] };

export class LaneLookup {
  /** The last lane each lookup key showed on this node: advisory (tool lists), never for routing. */
  private readonly seen = new Map<string, LaneState>();

  constructor(private readonly link: RedisLink) {}

  async mintTicket(scope: ControllerScope): Promise<MintedTicket> {
    const ticket = randomBytes(TICKET_BYTES).toString('base64url');
    const reply = (await runOrRefuse(
      this.link,
      'registration',
      lua.MINT,
      [ticketKey(ticket)],
      [JSON.stringify(scope), String(TICKET_TTL_SECONDS * 1000), mayReceiveSecrets(scope) ? '1' : '0'],
    )) as string[];
    if (reply[0] !== 'ok') throw new Error('ticket collision');
    return { ticket, issuedAt: Number(reply[1]), expiresAt: Number(reply[2]) };
  }

  async consumeTicket(ticket: string): Promise<ConsumeOutcome> {
    const reply = (await this.link.run(lua.CONSUME, [ticketKey(ticket)], [])) as string[];
    switch (reply[0]) {
      case 'ok':
        return { ok: true, scope: scopeOf(reply[1] as string, reply[2] === '1') };
      case 'consumed':
        return { ok: false, reason: 'ticket already consumed' };
      case 'expired':
        return { ok: false, reason: 'ticket expired' };
      default:
        return { ok: false, reason: 'unknown ticket' };
    }
  }

  laneState(query: LaneQuery): LaneState {
    return (
      this.seen.get(sessionLookupKey(query.sessionId, query.principalId, query.transportFamily)) ?? EMPTY_LANE
    );
  }

  async lookupLane(query: LaneQuery): Promise<LaneState> {
    if (!query.principalId.trim() || !query.sessionId.trim()) return EMPTY_LANE;
    const lookup = sessionLookupKey(query.sessionId, query.principalId, query.transportFamily);
    const keys = laneKeysOf(lookupSlot(lookup), '');
    const flat = (await runOrRefuse(
      this.link,
      'the call',
      lua.LOOKUP,
      [keys.idx],
      [keys.prefix],
      true,
    )) as string[];
    const controllers: LaneState['controllers'][number][] = [];
    for (let i = 0; i + 3 < flat.length; i += 4)
      controllers.push({
        scope: scopeOf(flat[i] as string, flat[i + 2] === '1', flat[i + 3]),
        connected: flat[i + 1] === '1',
      });
    const state: LaneState = { registered: controllers.length > 0, controllers };
    if (state.registered) this.seen.set(lookup, state);
    else this.seen.delete(lookup);
    return state;
  }
}
