/**
 * Reads this node's inbox stream in order with `XREAD BLOCK`, from the last id it handled. A reader
 * connection killed mid-run reconnects and resumes from that id, so nothing sent to this node is lost
 * (Pub/Sub would drop what arrived during the reconnect).
 */
import type { Logger } from '../../log/logger.js';
import { inboxKey } from './keys.js';
import { UNTIMED, type RedisLink } from './redis-link.js';

export type InboxEntry = Record<string, string>;

const BLOCK_MS = 1000;
const BATCH = 512;

export class InboxReader {
  private lastId = '0-0';
  /** When this node last read back its own probe (see NodeLease): the reader is not deaf. */
  lastProbe = performance.now();
  private running = true;
  private readonly done: Promise<void>;

  constructor(
    private readonly link: RedisLink,
    private readonly nodeId: string,
    private readonly handle: (entry: InboxEntry) => void,
    private readonly log: Logger,
  ) {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  private async loop(): Promise<void> {
    const key = inboxKey(this.nodeId);
    while (this.running) {
      let reply: unknown;
      try {
        reply = await this.link.reader.sendCommand(
          ['XREAD', 'BLOCK', String(BLOCK_MS), 'COUNT', String(BATCH), 'STREAMS', key, this.lastId],
          // Once per wake-up, so per call: a deaf reader is replaced (its probes stop coming back),
          // which ends this read, without a timer per read.
          UNTIMED,
        );
      } catch (error) {
        if (!this.running) return;
        this.log.debug('cluster inbox read failed', { reason: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      if (!Array.isArray(reply)) continue;
      for (const stream of reply as [string, [string, string[]][]][]) {
        for (const [id, fields] of stream[1]) {
          this.lastId = id;
          const entry: InboxEntry = { _id: id };
          for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i] as string] = fields[i + 1] as string;
          if (entry.k === 'probe') {
            this.lastProbe = performance.now();
            continue;
          }
          try {
            this.handle(entry);
          } catch (error) {
            this.log.warn('cluster inbox entry failed', { reason: (error as Error).message });
          }
        }
      }
    }
  }
}
