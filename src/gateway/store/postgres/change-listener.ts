/**
 * One connection per gateway that LISTENs on `tabgate_changes`, where the tables' triggers announce
 * every change any gateway commits (migrations.ts). A lost connection is opened again with backoff;
 * what was announced meanwhile is lost, so the first change after it is `*`: reload everything.
 */
import pg from 'pg';
import type { StoreChange } from '../store.js';
import { CHANGES_CHANNEL } from './migrations.js';

const TABLES = new Set(['sessions', 'site_grants', 'pairing_grants']);
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

export function parseChange(payload: string | undefined): StoreChange | null {
  if (!payload) return null;
  const space = payload.indexOf(' ');
  const table = payload.slice(0, space);
  if (space === -1 || !TABLES.has(table)) return null;
  return { table: table as StoreChange['table'], key: payload.slice(space + 1) };
}

export class ChangeListener {
  private client: pg.Client | null = null;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly emit: (change: StoreChange) => void,
    private readonly onError: (message: string) => void,
  ) {}

  /** Connects and listens; rejects when the first connection fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on('error', (error) => this.lost(client, error.message));
    client.on('end', () => this.lost(client, 'connection ended'));
    client.on('notification', (message) => {
      const change = parseChange(message.payload);
      if (change) this.emit(change);
    });
    await client.connect();
    await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = RETRY_MIN_MS;
  }

  private lost(client: pg.Client, reason: string): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.onError(`store change feed lost (${reason}); reconnecting`);
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect().then(
        () => this.emit({ table: '*', key: '*' }),
        () => {
          this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
          this.retry();
        },
      );
    }, this.retryMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
