/**
 * Picks the store from `store.url`: none → the embedded SQLite file in the home folder; a
 * `postgres://` URL → PostgreSQL, shared with every gateway given the same URL.
 */
import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

export interface OpenStoreOptions {
  home: string;
  url?: string;
  onError?: (message: string) => void;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.url === undefined) return SqliteStore.open(options.home);
  return PostgresStore.open({ url: options.url, onError: options.onError });
}
