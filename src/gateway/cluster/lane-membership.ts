/**
 * Lanes coming and going: a socket attaching here takes its lane in Redis (replacing other identities
 * of the lane) and receives its deferred cancels before it is routable; a disconnect takes it offline;
 * a detach (the controller's, the owner's delete or release, a revoked pairing) removes it, cancelling
 * its pending commands on every node.
 */
import type { FrameSender } from '../broker/commands.js';
import { laneKey, type ControllerScope } from '../broker/scope.js';
import { REVOKED_CLOSE_CODE } from '../pairing/grant-controllers.js';
import { mayReceiveSecrets } from '../secrets/index.js';
import type { BindingObserver } from '../session-binding.js';
import type { CallerWaiters } from './caller-waiters.js';
import { newCommandId } from '../broker/command-id.js';
import { laneKeys, laneKeysOf, nodeKey, sessionKey, type LaneKeys } from './keys.js';
import type { LaneCopies } from './lane-copies.js';
import { REATTACH_WAIT_MS } from './lane-lookup.js';
import type { LocalLane, LocalLanes } from './local-lanes.js';
import * as lua from './lua.js';
import type { RedisLink } from './redis-link.js';
import { INBOX_MAXLEN } from './redis-failures.js';
import type { StopFences } from './stop-fences.js';

export interface LaneMembershipOptions {
  link: RedisLink;
  nodeId: string;
  lanes: LocalLanes;
  waiters: CallerWaiters;
  bindings?: BindingObserver;
  /** Renews this node's lease now. */
  renewLease: () => Promise<void>;
  copies: LaneCopies;
  /** Answers of the nodes told to drop their copies (the same fence tokens as the owner's Stop). */
  fences: StopFences;
}

export class LaneMembership {
  constructor(private readonly o: LaneMembershipOptions) {}

  /**
   * Takes the lane for this node (replacing other identities of the lane), then writes the deferred
   * cancels in order; the lane is routable only once the commit finds none left.
   */
  async attach(scope: ControllerScope, owner: object, sender: FrameSender): Promise<void> {
    const { link, nodeId } = this.o;
    const keys = laneKeys(scope);
    const caps = `,${scope.capabilities.join(',')},`;
    const { capabilities: _kept, ...stored } = scope;
    const token = newCommandId();
    const take = async () =>
      (await link.run(
        lua.ATTACH,
        [keys.idx, keys.lane, sessionKey(scope.session_id), nodeKey(nodeId), keys.watch],
        [
          keys.h,
          JSON.stringify(stored),
          laneKey(scope),
          caps,
          nodeId,
          keys.prefix,
          keys.S,
          INBOX_MAXLEN,
          mayReceiveSecrets(scope) ? '1' : '0',
          token,
        ],
      )) as [string, string[], string[]] | ['nolease'];
    await link.whenReady(REATTACH_WAIT_MS);
    // Opened before the script runs: an answer may come before its reply.
    this.o.fences.open(token);
    let taken: Awaited<ReturnType<typeof take>> = ['nolease'];
    try {
      taken = await take();
      if (taken[0] === 'nolease') {
        await this.o.renewLease();
        taken = await take();
      }
    } finally {
      if (taken.length !== 3) void this.o.fences.wait(token, []);
    }
    if (taken.length !== 3) throw new Error('this gateway holds no cluster lease');
    const [gen, deferred, told] = taken;
    // Not acknowledged before every node routing from a copy of the lookup key has dropped it: a call
    // there right after this controller is told it is registered reads the lane anew and reaches it.
    // (A node that does not answer can only be refused by its stale copy, never misrouted: DISPATCH.)
    this.o.copies.drop(keys.S);
    const watchersTold = this.o.fences.wait(token, told);
    const lane: LocalLane = { scope, keys, owner, sender, gen, chain: Promise.resolve(), routable: false };
    this.o.lanes.set(lane);
    let pending = deferred;
    let moved = false;
    while (pending.length > 0) {
      // A throw leaves the unsent remainder queued for the next reconnect; the caller closes the socket.
      for (const frame of pending) sender(frame);
      const [status, left] = (await link.run(
        lua.COMMIT,
        [keys.lane, keys.defer],
        [gen, String(pending.length)],
      )) as [string, string[]];
      if (status === 'moved') {
        moved = true;
        break;
      }
      pending = left;
    }
    // Redis has it `connected` now (ATTACH did, or the last COMMIT): a call here may find it locally.
    lane.routable = !moved;
    await watchersTold;
    this.o.bindings?.bound(scope);
  }

  async disconnect(scope: ControllerScope, owner: object): Promise<boolean> {
    const keys = laneKeys(scope);
    const lane = this.o.lanes.get(keys.h);
    if (!lane || lane.owner !== owner) return false;
    this.o.lanes.delete(keys.h);
    await this.disconnectLane(keys, lane.gen);
    return true;
  }

  async detach(scope: ControllerScope, owner: object): Promise<boolean> {
    const keys = laneKeys(scope);
    const lane = this.o.lanes.get(keys.h);
    if (!lane || lane.owner !== owner) return false;
    const removed = await this.remove(keys, scope.session_id, lane);
    if (!removed) return false;
    if (removed.left === 0) this.o.bindings?.released(scope, 'stopped');
    return true;
  }

  async detachSession(sessionId: string): Promise<object[]> {
    const members: string[] = await this.o.link.command.sendCommand(['SMEMBERS', sessionKey(sessionId)]);
    const owners: object[] = [];
    for (const member of members) {
      const [S, h] = member.split(':') as [string, string];
      const removed = await this.remove(laneKeysOf(S, h), sessionId, null);
      if (removed?.owner) owners.push(removed.owner);
    }
    return owners;
  }

  async detachController(scope: ControllerScope): Promise<object | null> {
    const removed = await this.remove(laneKeys(scope), scope.session_id, null, String(REVOKED_CLOSE_CODE));
    if (!removed) return null;
    if (removed.left === 0) this.o.bindings?.released(scope, 'revoked');
    return removed.owner;
  }

  /** Graceful leave: each lane this node holds goes offline. */
  async leave(): Promise<void> {
    await Promise.all(this.o.lanes.all().map((lane) => this.disconnectLane(lane.keys, lane.gen)));
  }

  private disconnectLane(keys: LaneKeys, gen: string): Promise<unknown> {
    this.o.copies.drop(keys.S);
    return this.o.link.run(
      lua.DISCONNECT,
      [keys.lane, keys.watch],
      [this.o.nodeId, gen, keys.S, INBOX_MAXLEN],
    );
  }

  /**
   * Removes a controller: connected, it is told to cancel its sent commands, and every caller gets
   * `cancelled`. `expect` names the socket that must still hold the lane (null: whoever holds it).
   */
  private async remove(
    keys: LaneKeys,
    sessionId: string,
    expect: LocalLane | null,
    closeCode = '',
  ): Promise<{ owner: object | null; left: number } | null> {
    const { nodeId } = this.o;
    this.o.copies.drop(keys.S);
    const reply = (await this.o.link.run(
      lua.DETACH,
      [keys.idx, keys.lane, keys.pend, keys.defer, sessionKey(sessionId), keys.watch],
      [keys.h, nodeId, '1', INBOX_MAXLEN, keys.S, expect ? nodeId : '', expect ? expect.gen : '', closeCode],
    )) as [string, string, string[], string[], number] | null;
    if (!reply) return null;
    const [, ownerNode, frames, cancelled, left] = reply;
    const lane = ownerNode === nodeId ? this.o.lanes.get(keys.h) : undefined;
    if (lane) {
      for (const frame of frames) {
        try {
          lane.sender(frame);
        } catch {
          break;
        }
      }
      this.o.lanes.delete(keys.h);
    }
    for (const id of cancelled) this.o.waiters.settle(id, { kind: 'cancelled' });
    return { owner: lane?.owner ?? null, left: Number(left) };
  }
}
