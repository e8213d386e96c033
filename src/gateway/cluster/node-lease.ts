/**
 * This process's life in the cluster: a lease key renewed every second with a 3 s TTL. Dispatch refuses
 * a lane whose owner's lease is gone, so a node killed with -9 stops receiving work within 3 s, with no
 * janitor and no "node died" event. A graceful stop deletes the lease: its lanes fail closed at once.
 *
 * Each renewal also reads the cluster's epoch, a random value the first node writes: a Redis that comes
 * back without it has forgotten every lane (a restart without persistence, a failover, a flush), and a
 * node that cannot renew for longer than its lease is cut off. Both are reported, once each, so the
 * broker can let go of sockets nobody can route to any more.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../log/logger.js';
import { EPOCH_KEY, inboxKey, nodeKey } from './keys.js';
import * as lua from './lua.js';
import type { RedisLink } from './redis-link.js';

export const LEASE_TTL_MS = 3000;
export const LEASE_RENEW_MS = 1000;
/** Past this without a renewal the lease has certainly expired in Redis: the node is cut off. */
export const LAPSE_AFTER_MS = LEASE_TTL_MS + LEASE_RENEW_MS;
/** A dead node's inbox outlives its lease long enough for nothing in flight to matter. */
const INBOX_TTL_MS = 60_000;

export interface LeaseEvents {
  /** Redis answers again but no longer holds what this node wrote before. */
  forgotten(): void;
  /** No renewal for LAPSE_AFTER_MS: every other node already sees this one as gone. */
  lapsed(): void;
}

export class NodeLease {
  private timer: NodeJS.Timeout | null = null;
  private lastRenewed = 0;
  private epoch: string | null = null;
  private lapsed = false;

  constructor(
    private readonly link: RedisLink,
    private readonly nodeId: string,
    private readonly value: string,
    private readonly log: Logger,
    private readonly events: LeaseEvents,
  ) {}

  async start(): Promise<void> {
    await this.renew();
    this.timer = setInterval(() => {
      // Lapsed only when Redis cannot be reached: an event-loop stall followed by a renewal is no reason
      // to drop every socket.
      this.renew().catch(() => {
        if (this.lapsed || performance.now() - this.lastRenewed <= LAPSE_AFTER_MS) return;
        this.lapsed = true;
        this.log.warn('cluster node lease lapsed: letting go of this node’s controller sockets');
        this.events.lapsed();
      });
    }, LEASE_RENEW_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.link.command.sendCommand(['DEL', nodeKey(this.nodeId)]);
  }

  /** Renews at once (an attach found no lease: Redis restarted since the last renewal). */
  async renew(): Promise<void> {
    const epoch = (await this.link.run(
      lua.RENEW,
      [nodeKey(this.nodeId), inboxKey(this.nodeId), EPOCH_KEY],
      [this.value, String(LEASE_TTL_MS), String(INBOX_TTL_MS), randomBytes(8).toString('hex')],
    )) as string;
    this.lastRenewed = performance.now();
    this.lapsed = false;
    const before = this.epoch;
    this.epoch = epoch;
    if (before !== null && before !== epoch) {
      this.log.warn('cluster redis forgot its state (restart or failover): revalidating sockets');
      this.events.forgotten();
    }
  }
}
