/**
 * Picks the store from `store.url`: none → the embedded SQLite file in the home folder; a
 * `postgres://` URL → PostgreSQL, shared with every gateway given the same URL.
 */
import type { Logger } from '../../log/logger.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

export interface OpenStoreOptions {
  home: string;
  url?: string;
  onError?: (message: string) => void;
  /** Hears what the embedded store's checkpoint worker reports. */
  log?: Logger;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.url === undefined) return SqliteStore.open(options.home, options.log);
  // Only a shared store loads the PostgreSQL client: the embedded default starts without it.
  const { PostgresStore } = await import('./postgres/postgres-store.js');
  return PostgresStore.open({ url: options.url, onError: options.onError });
}
