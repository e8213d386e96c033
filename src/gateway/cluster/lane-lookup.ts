/**
 * Registration tickets and lane reads, both in Redis: a ticket minted on one node is consumed on
 * whichever node the socket reaches (exactly one winner), and a call reads its lane from Redis before
 * routing, unless this node holds its socket or keeps a copy of it (lane-copies.ts).
 */
import { randomBytes } from 'node:crypto';
import { TICKET_BYTES, TICKET_TTL_SECONDS } from '../../protocol/index.js';
import type { LaneState } from '../broker/controller-broker.js';
import { sessionLookupKey, type ControllerScope, type LaneQuery } from '../broker/scope.js';
import type { ConsumeOutcome, MintedTicket } from '../broker/tickets.js';
import { mayReceiveSecrets } from '../secrets/index.js';
import { laneKeys, laneKeysOf, lookupSlot, ticketKey, type LaneKeys } from './keys.js';
import type { LaneCopies } from './lane-copies.js';
import * as lua from './lua.js';
import type { LocalLanes } from './local-lanes.js';
import type { RedisLink } from './redis-link.js';
import { runOrRefuse } from './redis-failures.js';
import { scopeOf } from './scope-from-redis.js';

const EMPTY_LANE: LaneState = { registered: false, controllers: [] };

/**
 * How long a socket upgrade waits for this node's connection to Redis to be back (a Redis restart: the
 * registration may have gone through a node that found it first) before it is refused 503.
 */
export const REATTACH_WAIT_MS = 2000;

export class LaneLookup {
  /** The last lane each lookup key showed on this node: advisory (tool lists), never for routing. */
  private readonly seen = new Map<string, LaneState>();

  constructor(
    private readonly link: RedisLink,
    private readonly nodeId: string,
    private readonly lanes: LocalLanes,
    private readonly copies: LaneCopies,
  ) {}

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
    await this.link.whenReady(REATTACH_WAIT_MS);
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
    const known = this.servedHere(keys.S) ?? this.copies.get(keys.S);
    if (known) {
      this.seen.set(lookup, known);
      return known;
    }
    const state = await this.read(keys);
    if (state.registered) this.seen.set(lookup, state);
    else this.seen.delete(lookup);
    return state;
  }

  /**
   * A dispatch from this node's copy was refused as stale: the lookup key is read from Redis again.
   * → whether it still routes to the identity the call chose (which the dispatch checks once more).
   */
  async stillRoutesTo(keys: LaneKeys): Promise<boolean> {
    const state = await this.read(keys);
    const [only] = state.controllers;
    return state.controllers.length === 1 && only?.connected === true && laneKeys(only.scope).h === keys.h;
  }

  /** The lookup key's lanes from Redis; one routable controller is kept as a copy from now on. */
  private async read(keys: LaneKeys): Promise<LaneState> {
    const state = stateOf(
      (await runOrRefuse(this.link, 'the call', lua.LOOKUP, [keys.idx], [keys.prefix], true)) as string[],
    );
    if (routable(state)) this.watch(keys);
    return state;
  }

  /** Makes a copy of a routable lookup key, in the background: this call has its answer already. */
  private watch(keys: LaneKeys): void {
    const token = this.copies.beginWatch(keys.S);
    if (token === null) return;
    this.link.run(lua.WATCH, [keys.idx, keys.watch], [keys.prefix, this.nodeId]).then(
      (flat) => {
        const state = stateOf(flat as string[]);
        this.copies.endWatch(keys.S, token, routable(state) ? state : null);
      },
      () => this.copies.endWatch(keys.S, token, null),
    );
  }

  /**
   * The lane of a lookup key whose one socket this node holds, routable: read without Redis, since
   * what it could have missed is checked again by the dispatch script, in the same step that queues the
   * command (the session's Stop; another controller in the lookup key; the lane taken by another
   * node, which this node learns through its inbox; its own lease). Only a routable answer is served
   * here: a lane this node does not hold may have been registered anywhere, and reading it as absent
   * would route the call to another browser.
   */
  private servedHere(S: string): LaneState | null {
    const held = this.lanes.inSlot(S);
    if (held.size !== 1) return null;
    const [lane] = held;
    if (!lane?.routable) return null;
    return { registered: true, controllers: [{ scope: lane.scope, connected: true }] };
  }
}

function stateOf(flat: string[]): LaneState {
  const controllers: LaneState['controllers'][number][] = [];
  for (let i = 0; i + 3 < flat.length; i += 4)
    controllers.push({
      scope: scopeOf(flat[i] as string, flat[i + 2] === '1', flat[i + 3]),
      connected: flat[i + 1] === '1',
    });
  return { registered: controllers.length > 0, controllers };
}

const routable = (state: LaneState): boolean =>
  state.controllers.length === 1 && state.controllers[0]?.connected === true;
