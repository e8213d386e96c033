/**
 * This process's life in the cluster: a lease key renewed every second with a 3 s TTL. Dispatch refuses
 * a lane whose owner's lease is gone, so a node killed with -9 stops receiving work within 3 s, with no
 * janitor and no "node died" event. A graceful stop deletes the lease: its lanes fail closed at once.
 */
import type { Logger } from '../../log/logger.js';
import { inboxKey, nodeKey } from './keys.js';
import type { RedisLink } from './redis-link.js';

export const LEASE_TTL_MS = 3000;
export const LEASE_RENEW_MS = 1000;
/** A dead node's inbox outlives its lease long enough for nothing in flight to matter. */
const INBOX_TTL_MS = 60_000;

export class NodeLease {
  private timer: NodeJS.Timeout | null = null;
  private lastRenewed = 0;

  constructor(
    private readonly link: RedisLink,
    private readonly nodeId: string,
    private readonly value: string,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    await this.renew();
    this.timer = setInterval(() => {
      this.renew().catch((error: unknown) => {
        if (performance.now() - this.lastRenewed > LEASE_TTL_MS)
          this.log.warn('cluster node lease lapsed', { reason: (error as Error).message });
      });
    }, LEASE_RENEW_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.link.command.sendCommand(['DEL', nodeKey(this.nodeId)]);
  }

  private async renew(): Promise<void> {
    const c = this.link.command;
    await Promise.all([
      c.sendCommand(['SET', nodeKey(this.nodeId), this.value, 'PX', String(LEASE_TTL_MS)]),
      c.sendCommand(['PEXPIRE', inboxKey(this.nodeId), String(INBOX_TTL_MS)]),
    ]);
    this.lastRenewed = performance.now();
  }
}
