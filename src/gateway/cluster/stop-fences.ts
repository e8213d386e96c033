/**
 * The owner's Stop waits for the nodes holding the session's sockets. A node may have cleared a command
 * with `mark-sent` a moment before the Stop, and not yet written it: the Stop's cancel follows it, but
 * the command itself would still reach the controller after Stop returned. So the Stop appends a fence
 * to each such node's inbox, after its cancels; the node answers once everything it had cleared for its
 * sockets, and those cancels, are written. A node that never answers (dead, or cut off from Redis) is
 * waited for no longer than a lease and a renewal: by then its sockets are closed (see NodeLease).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { inboxKey } from './keys.js';
import type { LocalLanes } from './local-lanes.js';
import { LAPSE_AFTER_MS } from './node-lease.js';
import type { RedisLink } from './redis-link.js';
import { INBOX_MAXLEN } from './redis-failures.js';

interface Pending {
  acked: Set<string>;
  wake: () => void;
}

export class StopFences {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly link: RedisLink,
    private readonly nodeId: string,
    private readonly lanes: LocalLanes,
  ) {}

  /** Registers a fence before its script runs: an answer may come before the script's reply. */
  open(token: string): void {
    this.pending.set(token, { acked: new Set(), wake: () => undefined });
  }

  /** Waits until every node in `nodes` answered the fence (or the cap). → the nodes that did not answer */
  async wait(token: string, nodes: string[], capMs = LAPSE_AFTER_MS): Promise<string[]> {
    const entry = this.pending.get(token);
    if (!entry) return [];
    const missing = () => nodes.filter((node) => !entry.acked.has(node));
    try {
      if (missing().length > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, capMs);
          entry.wake = () => {
            if (missing().length > 0) return;
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return missing();
    } finally {
      this.pending.delete(token);
    }
  }

  /** A node answered a fence of this one's. */
  acked(token: string, node: string): void {
    const entry = this.pending.get(token);
    if (!entry) return;
    entry.acked.add(node);
    entry.wake();
  }

  /**
   * A fence from another node's Stop: answered once what this node cleared for its sockets is written.
   * A command this node dispatched to its own socket is written when the dispatch reply is handled, not
   * in a socket's chain: a round trip on that connection, and a turn of the event loop, come after it.
   */
  async answer(token: string, stopper: string): Promise<void> {
    await this.link.command.sendCommand(['PING']);
    await nextTurn();
    await Promise.all(this.lanes.all().map((lane) => lane.chain));
    await this.tellFenced(token, stopper);
  }

  /** Tells `node` that this one has done what its fence `token` asked (a Stop's, or a lane change's). */
  async tellFenced(token: string, node: string): Promise<void> {
    await this.link.command.sendCommand([
      'XADD',
      inboxKey(node),
      'MAXLEN',
      '~',
      INBOX_MAXLEN,
      '*',
      'k',
      'fenced',
      't',
      token,
      'n',
      this.nodeId,
    ]);
  }

  /** Everything this node has cleared for its own sockets is written (its own Stop's part). */
  async settleHere(): Promise<void> {
    await nextTurn();
    await Promise.all(this.lanes.all().map((lane) => lane.chain));
  }
}
