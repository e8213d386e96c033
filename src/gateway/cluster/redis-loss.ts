/**
 * Fail closed when Redis loses what this node wrote or this node loses Redis: sockets nobody can route
 * to any more are closed (1012) so their extensions register again, and nothing is ever re-routed.
 * Also replaces an inbox reader that has gone deaf while Redis still answers.
 */
import type { Logger } from '../../log/logger.js';
import type { InboxReader } from './inbox-reader.js';
import type { LaneCopies } from './lane-copies.js';
import { LET_GO_CODE, type LocalLanes } from './local-lanes.js';
import { LEASE_RENEW_MS, type LeaseEvents } from './node-lease.js';
import type { RedisLink } from './redis-link.js';

/** The reader has not read back its own probe for this long while renewals succeed: it is deaf. */
const DEAF_AFTER_MS = 3 * LEASE_RENEW_MS;

export class RedisLossGuard implements LeaseEvents {
  private replacingReader = false;

  constructor(
    private readonly link: RedisLink,
    private readonly nodeId: string,
    private readonly lanes: LocalLanes,
    private readonly log: Logger,
    private readonly copies: LaneCopies,
  ) {}

  forgotten(): void {
    void this.revalidate();
  }

  lapsed(): void {
    this.copies.clear();
    this.lanes.letGoAll('this gateway lost its cluster');
  }

  /** A restart or failover that kept the epoch (persistence) may still have lost the last writes. */
  async watchRestarts(): Promise<void> {
    let runId = await this.link.runId();
    this.link.onReconnect(() => {
      this.link.runId().then(
        (now) => {
          if (now === runId) return;
          runId = now;
          void this.revalidate();
        },
        () => undefined,
      );
    });
  }

  /**
   * Redis may have forgotten lanes: each socket whose lane is no longer this node's at its generation
   * is closed so its controller registers again. Nothing is re-routed: until then its calls fail closed.
   */
  private async revalidate(): Promise<void> {
    // Nobody would tell a copy of what a Redis that forgot its watch sets changes.
    this.copies.clear();
    const lanes = this.lanes.all();
    const found = await Promise.all(
      lanes.map((lane) =>
        this.link.command.sendCommand(['HMGET', lane.keys.lane, 'owner', 'gen']).catch(() => null),
      ),
    );
    lanes.forEach((lane, i) => {
      const [owner, gen] = (found[i] ?? []) as (string | null)[];
      if (owner !== this.nodeId || gen !== lane.gen)
        this.lanes.letGo(lane, LET_GO_CODE, 'the cluster forgot this controller; register again');
    });
  }

  /** Redis answers this node, yet its reader hears nothing, not even its own probes: a new connection. */
  checkReader(reader: InboxReader | null): void {
    if (!reader || this.replacingReader || !this.link.ready) return;
    if (performance.now() - reader.lastProbe < DEAF_AFTER_MS) return;
    this.replacingReader = true;
    this.log.warn('cluster inbox reader hears nothing: replacing its connection');
    this.link
      .replaceReader()
      .catch((error: unknown) =>
        this.log.warn('cluster inbox reader not replaced', { reason: (error as Error).message }),
      )
      .finally(() => {
        reader.lastProbe = performance.now();
        this.replacingReader = false;
      });
  }
}
