/**
 * This node's copies of lookup keys whose sockets other nodes hold, so that a call arriving here is
 * routed without reading its lane from Redis first (one round trip of a cross-node call's five).
 *
 * A copy is made by the WATCH script, which reads the lanes and registers this node as a watcher in
 * one step; whoever changes the lookup key's lanes afterwards (attach, replacement, disconnect,
 * detach) tells every watcher through its inbox and empties the watch set. A copy can therefore be
 * stale only for the moment that message takes, and DISPATCH refuses it then (this node is no longer
 * in the set): a stale copy never routes a command. It is not trusted for where to send either: the
 * dispatch reads owner and generation from Redis, so the copy names at most which identity the call
 * chose, and that identity is checked again there too.
 */
import type { LaneState } from '../broker/controller-broker.js';

export class LaneCopies {
  private readonly copies = new Map<string, LaneState>();
  /** The WATCH in flight for each lookup key: a change told meanwhile voids its answer. */
  private readonly watching = new Map<string, number>();
  private nextWatch = 0;

  get(S: string): LaneState | undefined {
    return this.copies.get(S);
  }

  has(S: string): boolean {
    return this.copies.has(S);
  }

  /** A WATCH for `S` starts; → its token, or null when one is already in flight. */
  beginWatch(S: string): number | null {
    if (this.watching.has(S)) return null;
    const token = ++this.nextWatch;
    this.watching.set(S, token);
    return token;
  }

  /**
   * The WATCH answered: kept only if nothing about `S` was told since it started (the answer may
   * predate the change, and the change's message may have been read before this reply).
   */
  endWatch(S: string, token: number, state: LaneState | null): void {
    if (this.watching.get(S) !== token) return;
    this.watching.delete(S);
    if (state) this.copies.set(S, state);
  }

  /** The lookup key changed (or its copy was refused): routed from Redis again until a new WATCH. */
  drop(S: string): void {
    this.copies.delete(S);
    this.watching.delete(S);
  }

  /** Redis forgot, or this node lost its cluster: no copy can be told of changes any more. */
  clear(): void {
    this.copies.clear();
    this.watching.clear();
  }
}
