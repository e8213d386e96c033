/**
 * The node's connections to Redis: one for commands and scripts, one for the blocking inbox read (a
 * blocking command must not hold up the others), and one for read-only scripts: while Redis pauses
 * writes (`CLIENT PAUSE WRITE`, a failover) a paused write holds up everything behind it on its
 * connection, and a call's lane read must not wait there, outside any deadline. Commands are never queued while disconnected and never
 * re-sent after a reconnect: a step whose outcome is unknown fails, and the call fails closed.
 */
import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import type { Logger } from '../../log/logger.js';
import { redactRedisUrl } from './redis-url.js';
import { ClusterUnreachableError } from '../start-errors.js';

export type Reply = unknown;

const CONNECT_TIMEOUT_MS = 3000;

/**
 * node-redis 6 bounds every command by 5 s with an `AbortSignal.timeout` of its own: a timer, an
 * EventTarget and a weak reference per command, about 14 µs of CPU each when pipelined, measured
 * against 5.6 µs for the whole command without it. The steps on a call's path are bounded already
 * (the caller's deadline, the owner's lease, a deaf reader's replacement) and drop it; every other
 * step keeps it, since the lease's lapse relies on a hung renewal failing.
 */
export const UNTIMED = { timeout: 0 } as const;

function makeClient(url: string, name: string, log: Logger) {
  const client = createClient({
    url,
    RESP: 2,
    name,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number) => Math.min(50 * (retries + 1), 1000),
    },
  });
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    // node-redis error messages name host and port, never the password; the URL is redacted anyway.
    log.warn('cluster redis connection lost', { url: redactRedisUrl(url), reason: error.message });
  });
  client.on('ready', () => {
    if (down) log.info('cluster redis connection back', { url: redactRedisUrl(url) });
    down = false;
  });
  return client;
}

export type RedisClient = ReturnType<typeof makeClient>;

export class RedisLink {
  private readonly shas = new Map<string, string>();
  /** Who waits for the command connection to be ready again (see whenReady). */
  private readonly readyWaiters = new Set<() => void>();

  private constructor(
    readonly command: RedisClient,
    /** Read-only scripts only (declared `no-writes`), so that a write pause never holds them up. */
    private readonly reads: RedisClient,
    /** Replaced whole when it has gone deaf (see replaceReader). */
    public reader: RedisClient,
    private readonly url: string,
    /** The node these connections serve; each connection is named after it (`CLIENT LIST`). */
    readonly nodeId: string,
    private readonly log: Logger,
  ) {
    command.on('ready', () => {
      for (const wake of [...this.readyWaiters]) wake();
    });
  }

  static async open(url: string, nodeId: string, log: Logger): Promise<RedisLink> {
    const command = makeClient(url, `tg-cmd-${nodeId}`, log);
    const reads = makeClient(url, `tg-read-${nodeId}`, log);
    const reader = makeClient(url, `tg-inbox-${nodeId}`, log);
    try {
      await Promise.race([
        Promise.all([command.connect(), reads.connect(), reader.connect()]),
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error('no answer')), CONNECT_TIMEOUT_MS).unref(),
        ),
      ]);
      await command.sendCommand(['PING']);
    } catch (error) {
      command.destroy();
      reads.destroy();
      reader.destroy();
      throw new ClusterUnreachableError(
        `cannot reach the cluster's Redis at ${redactRedisUrl(url)}: ${(error as Error).message}`,
      );
    }
    return new RedisLink(command, reads, reader, url, nodeId, log);
  }

  /**
   * A connection can stay open at TCP level yet deliver nothing (a failover, a stuck proxy): the
   * reader is then replaced by a new connection, and the blocked read on the old one fails.
   */
  async replaceReader(): Promise<void> {
    const fresh = makeClient(this.url, `tg-inbox-${this.nodeId}`, this.log);
    await fresh.connect();
    const old = this.reader;
    this.reader = fresh;
    old.destroy();
  }

  /** The Redis server's id for this run: it changes with every restart or failover. */
  async runId(): Promise<string> {
    const info = await this.command.sendCommand<string>(['INFO', 'server']);
    return /run_id:(\w+)/.exec(info)?.[1] ?? '';
  }

  /** Called each time the command connection is ready again after a loss (not at the first connect). */
  onReconnect(listener: () => void): void {
    this.command.on('ready', listener);
  }

  get ready(): boolean {
    return this.command.isReady;
  }

  /**
   * Resolves once the command connection is ready, at once when it is, or after `withinMs` whatever
   * its state (the step then runs, and fails if it is still down).
   */
  whenReady(withinMs: number): Promise<void> {
    if (this.command.isReady) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.readyWaiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, withinMs);
      this.readyWaiters.add(wake);
    });
  }

  /** Runs a script by its SHA-1, loading it once when Redis does not know it (first use, or a restart). */
  run(source: string, keys: readonly string[], args: readonly string[]): Promise<Reply> {
    return this.runOn(this.command, source, keys, args);
  }

  /**
   * As run, without node-redis' own timer: only for a step of a call's path, whose wait another
   * deadline bounds (see UNTIMED).
   */
  runOnCallPath(source: string, keys: readonly string[], args: readonly string[]): Promise<Reply> {
    return this.runOn(this.command, source, keys, args, UNTIMED);
  }

  /** Runs a script declared `#!lua flags=no-writes` on the read-only connection. */
  runRead(source: string, keys: readonly string[], args: readonly string[]): Promise<Reply> {
    return this.runOn(this.reads, source, keys, args);
  }

  private async runOn(
    client: RedisClient,
    source: string,
    keys: readonly string[],
    args: readonly string[],
    options?: typeof UNTIMED,
  ): Promise<Reply> {
    let sha = this.shas.get(source);
    if (!sha) this.shas.set(source, (sha = createHash('sha1').update(source).digest('hex')));
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await client.sendCommand(['EVALSHA', sha, ...tail], options);
    } catch (error) {
      if (!(error as Error).message.startsWith('NOSCRIPT')) throw error;
      return client.sendCommand(['EVAL', source, ...tail], options);
    }
  }

  close(): void {
    this.command.destroy();
    this.reads.destroy();
    this.reader.destroy();
  }
}
