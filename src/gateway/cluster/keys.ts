/**
 * Where a lane lives in Redis. Ids travel hashed: a ticket is stored under its SHA-256 (so no usable
 * ticket sits in Redis), and identities and lookup keys become short hex names. Every key of one lookup
 * key shares the `{S}` hash tag, so the scripts stay inside one slot should Redis Cluster ever be used.
 */
import { createHash } from 'node:crypto';
import { identityKey, lookupKeyOfScope, type ControllerScope } from '../broker/scope.js';

/** Names already hashed: every call hashes its session and lookup key again, and a hash costs µs. */
const hashed = new Map<string, string>();
const HASHED_MAX = 10_000;

const hex = (text: string): string => {
  let name = hashed.get(text);
  if (name === undefined) {
    name = createHash('sha256').update(text).digest('hex').slice(0, 32);
    // Dropped whole when full: a bound, not an LRU; the next calls hash their names again.
    if (hashed.size >= HASHED_MAX) hashed.clear();
    hashed.set(text, name);
  }
  return name;
};

export const ticketKey = (ticket: string): string =>
  `tg:tkt:${createHash('sha256').update(ticket).digest('hex')}`;
export const nodeKey = (nodeId: string): string => `tg:node:${nodeId}`;
export const inboxKey = (nodeId: string): string => `tg:inbox:${nodeId}`;
/** Written once by the first node; gone means Redis forgot everything (see NodeLease). */
export const EPOCH_KEY = 'tg:epoch';
export const sessionKey = (sessionId: string): string => `tg:sess:${hex(sessionId)}`;
/** Present while the owner has the session stopped: every dispatch checks it in its own script. */
export const stopKey = (sessionId: string): string => `tg:stop:${hex(sessionId)}`;

/** The keys of one controller identity (`h`) in its lookup key's slot (`S`). */
export interface LaneKeys {
  readonly S: string;
  readonly h: string;
  readonly prefix: string;
  readonly idx: string;
  readonly lane: string;
  readonly pend: string;
  readonly defer: string;
  /** The nodes keeping a copy of this lookup key's lanes (lane-copies.ts). */
  readonly watch: string;
}

export function laneKeysOf(S: string, h: string): LaneKeys {
  const prefix = `tg:{${S}}:`;
  return {
    S,
    h,
    prefix,
    idx: `${prefix}idx`,
    lane: `${prefix}lane:${h}`,
    pend: `${prefix}pend:${h}`,
    defer: `${prefix}defer:${h}`,
    watch: `${prefix}watch`,
  };
}

const cache = new WeakMap<ControllerScope, LaneKeys>();

export function laneKeys(scope: ControllerScope): LaneKeys {
  let keys = cache.get(scope);
  if (!keys) cache.set(scope, (keys = laneKeysOf(hex(lookupKeyOfScope(scope)), hex(identityKey(scope)))));
  return keys;
}

export const lookupSlot = (sessionLookupKey: string): string => hex(sessionLookupKey);
