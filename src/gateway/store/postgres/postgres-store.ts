/**
 * The shared store: one PostgreSQL database that several gateways use at once (docs/cluster.md).
 * Client: node-postgres (`pg` 8), pure JavaScript, with a pool for queries, a dedicated client per
 * transaction and one for LISTEN. Opening it connects, applies the migrations and starts listening, so
 * a database that cannot be reached fails the gateway's start with the URL named, password hidden.
 */
import pg from 'pg';
import { redactStoreUrl, scrubPassword } from '../store-url.js';
import type {
  AuditRows,
  PairingGrantRows,
  SessionRows,
  SiteGrantRows,
  Store,
  StoreChange,
} from '../store.js';
import { ChangeListener } from './change-listener.js';
import { migrate } from './migrations.js';
import { pgAudit } from './pg-audit.js';
import { pgPairingGrants, pgSiteGrants } from './pg-grants.js';
import { pgSessions } from './pg-sessions.js';
import { guarded } from './unavailable.js';
import { StoreUnavailableError } from '../../start-errors.js';

const INT8_OID = 20;
const CONNECT_TIMEOUT_MS = 5_000;

/** BIGINT columns (audit ids, times in ms, offsets) as numbers: they stay below 2^53. */
const parseInt8 = (value: string): number => Number(value);
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === INT8_OID ? parseInt8 : (pg.types.getTypeParser(oid, format) as unknown)) as never,
};

export interface PostgresStoreOptions {
  url: string;
  /** Told of trouble that does not fail a call: a lost idle connection, a lost change feed. */
  onError?: (message: string) => void;
  /** Connections in the pool (default 10). */
  poolSize?: number;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly shared = true;
  readonly where: string;
  readonly sessions: SessionRows;
  readonly siteGrants: SiteGrantRows;
  readonly pairingGrants: PairingGrantRows;
  readonly audit: AuditRows;
  private readonly listeners = new Set<(change: StoreChange) => void>();
  private readonly feed: ChangeListener;
  private closed = false;

  /** Connects, migrates and listens; throws StoreUnavailableError naming the URL (password hidden). */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const store = new PostgresStore(options);
    try {
      await migrate(store.pool);
      await store.feed.start();
    } catch (error) {
      await store.close();
      const reason = scrubPassword((error as Error).message || String(error), options.url);
      throw new StoreUnavailableError(`cannot use the PostgreSQL store at ${store.where}: ${reason}`);
    }
    return store;
  }

  private readonly pool: pg.Pool;

  private constructor(private readonly o: PostgresStoreOptions) {
    this.where = redactStoreUrl(o.url);
    const config: pg.ClientConfig = {
      connectionString: o.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'tabgate',
      types,
    };
    this.pool = new pg.Pool({ ...config, max: o.poolSize ?? 10 });
    // An idle connection that dies must not take the gateway with it; the next query opens another.
    this.pool.on('error', (error) => this.trouble(`store connection lost: ${error.message}`));
    this.sessions = guarded(pgSessions(this.pool));
    this.siteGrants = guarded(pgSiteGrants(this.pool));
    this.pairingGrants = guarded(pgPairingGrants(this.pool));
    this.audit = guarded(pgAudit(this.pool));
    this.feed = new ChangeListener(
      config,
      (change) => {
        for (const listener of this.listeners) listener(change);
      },
      (message) => this.trouble(message),
    );
  }

  private trouble(message: string): void {
    if (!this.closed) this.o.onError?.(scrubPassword(message, this.o.url));
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.feed.close();
    await this.pool.end().catch(() => undefined);
  }
}
