/**
 * The controller sockets this node holds, one per identity, with the generation Redis gave each attach.
 * Writes to one socket keep the inbox's order through its `chain`: a cancel waits for the command
 * before it.
 */
import { DEFERRED_CANCEL_CAP } from '../../protocol/index.js';
import type { FrameSender } from '../broker/commands.js';
import type { ControllerScope } from '../broker/scope.js';
import { ControllerConnection } from '../ws/controller-connection.js';
import type { LaneKeys } from './keys.js';
import * as lua from './lua.js';
import type { RedisLink } from './redis-link.js';

/**
 * "Service restart": the extension registers again, through whichever node the load balancer picks,
 * and so lands on a node that can route to it.
 */
export const LET_GO_CODE = 1012;

const NONE: ReadonlySet<LocalLane> = new Set();

export interface LocalLane {
  scope: ControllerScope;
  keys: LaneKeys;
  owner: object;
  sender: FrameSender;
  gen: string;
  /** Writes to this socket, in inbox order: a cancel waits for the command before it. */
  chain: Promise<void>;
  /** Its deferred cancels are written and Redis has it `connected`: calls may be routed to it. */
  routable: boolean;
}

export class LocalLanes {
  private readonly byIdentity = new Map<string, LocalLane>();
  /** The lanes of each lookup key (`S`) held here: a call arriving here may find its lane without Redis. */
  private readonly bySlot = new Map<string, Set<LocalLane>>();

  constructor(private readonly link: RedisLink) {}

  get(h: string): LocalLane | undefined {
    return this.byIdentity.get(h);
  }

  set(lane: LocalLane): void {
    const old = this.byIdentity.get(lane.keys.h);
    if (old) this.unindex(old);
    this.byIdentity.set(lane.keys.h, lane);
    const slot = this.bySlot.get(lane.keys.S) ?? new Set<LocalLane>();
    slot.add(lane);
    this.bySlot.set(lane.keys.S, slot);
  }

  delete(h: string): void {
    const lane = this.byIdentity.get(h);
    if (!lane) return;
    this.byIdentity.delete(h);
    this.unindex(lane);
  }

  /** The lanes of one lookup key this node holds. */
  inSlot(S: string): ReadonlySet<LocalLane> {
    return this.bySlot.get(S) ?? NONE;
  }

  private unindex(lane: LocalLane): void {
    const slot = this.bySlot.get(lane.keys.S);
    slot?.delete(lane);
    if (slot?.size === 0) this.bySlot.delete(lane.keys.S);
  }

  all(): LocalLane[] {
    return [...this.byIdentity.values()];
  }

  clear(): void {
    this.byIdentity.clear();
    this.bySlot.clear();
  }

  /** Writes a cancel after whatever this socket is still being sent. */
  queueCancel(lane: LocalLane, frame: string): void {
    lane.chain = lane.chain.then(() => this.writeCancel(lane, frame));
  }

  private writeCancel(lane: LocalLane, frame: string): void {
    try {
      lane.sender(frame);
    } catch {
      // The socket is going away; the cancel waits for the reconnect.
      void this.link
        .run(lua.DEFER, [lane.keys.defer], [frame, String(DEFERRED_CANCEL_CAP)])
        .catch(() => undefined);
    }
  }

  /** Closes a socket this node holds and stops routing to it; its `disconnect` then finds nothing. */
  letGo(lane: LocalLane, code: number, reason: string): void {
    if (this.byIdentity.get(lane.keys.h) === lane) this.delete(lane.keys.h);
    if (lane.owner instanceof ControllerConnection) lane.owner.close(code, reason);
  }

  letGoAll(reason: string): void {
    for (const lane of this.all()) this.letGo(lane, LET_GO_CODE, reason);
  }
}
