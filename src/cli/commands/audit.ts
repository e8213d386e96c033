/**
 * `tabgate audit [--session ID] [--limit N] [--follow] [--json]`: prints the audit log. It reads the
 * gateway's store directly (the SQLite file, or with `store.url` the PostgreSQL database every gateway
 * of a cluster writes, so `--follow` follows the whole cluster) rather than the HTTP API, because the log matters most when the
 * gateway is down or was killed (after an incident), and because whoever can read the home folder can
 * read the API key there anyway: no new access is granted. Rows a killed gateway left in its journal
 * are folded in first; no row is ever changed or removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { InvalidArgumentError, type Command } from 'commander';
import { AuditStore, MAX_AUDIT_LIMIT, type AuditEntry } from '../../gateway/audit/index.js';
import { foldJournals, journalDir } from '../../gateway/audit/journal-recovery.js';
import { ConfigError, loadConfig } from '../../gateway/config/index.js';
import { STATE_DB_FILE } from '../../gateway/store/database.js';
import { sqliteAuditRows } from '../../gateway/store/sqlite-store.js';
import type { AuditRows } from '../../gateway/store/store.js';
import { createLogger } from '../../log/logger.js';

const FOLLOW_INTERVAL_MS = 1000;

interface AuditOptions {
  session?: string;
  limit: number;
  follow?: boolean;
  json?: boolean;
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > MAX_AUDIT_LIMIT) {
    throw new InvalidArgumentError(`expected a number from 1 to ${MAX_AUDIT_LIMIT}`);
  }
  return limit;
}

export function formatEntry(entry: AuditEntry): string {
  const args = Object.keys(entry.arguments).length > 0 ? ` ${JSON.stringify(entry.arguments)}` : '';
  const context = entry.context ? `  context=${JSON.stringify(entry.context)}` : '';
  return (
    [
      entry.at,
      entry.session_id,
      entry.controller_id ? `controller:${entry.controller_id}` : entry.backend,
      entry.action,
      entry.outcome,
      `${entry.duration_ms}ms`,
      entry.origin ?? '-',
    ].join('  ') +
    args +
    context
  );
}

const hasTable = (db: Database.Database, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/**
 * Opens the audit log, first folding in what gateways' journals still hold (a gateway killed a moment
 * after answering has its last rows there). Without write access to the file it reads what is folded.
 * A missing file or a gateway too old to have the table is an error.
 */
export interface AuditReader {
  store: AuditRows;
  close(): Promise<void>;
}

/** The audit log of the store the configuration names: PostgreSQL with `storeUrl`, else the home's file. */
export async function openAuditReader(home: string, storeUrl?: string): Promise<AuditReader> {
  if (storeUrl === undefined) return openSqliteAuditReader(home);
  const { PostgresStore } = await import('../../gateway/store/postgres/postgres-store.js');
  const store = await PostgresStore.open({ url: storeUrl });
  await foldLocalJournals(store.audit, home);
  return { store: store.audit, close: () => store.close() };
}

/** Rows a gateway of this home left in its journal when it was killed. */
async function foldLocalJournals(store: AuditRows, home: string): Promise<void> {
  const log = createLogger({ level: 'warn' });
  try {
    await foldJournals(store, journalDir(home), log);
  } catch (error) {
    log.warn('could not fold the audit journal; showing what is folded', {
      reason: (error as Error).message,
    });
  }
}

async function openSqliteAuditReader(home: string): Promise<AuditReader> {
  const file = path.join(home, STATE_DB_FILE);
  if (!fs.existsSync(file))
    throw new Error(`no audit log yet: ${file} does not exist (start the gateway once)`);
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch {
    db = new Database(file, { readonly: true, fileMustExist: true });
  }
  db.pragma('busy_timeout = 5000');
  if (!hasTable(db, 'audit_log')) {
    db.close();
    throw new Error(`${file} has no audit log yet; start this version of the gateway once`);
  }
  const store = sqliteAuditRows(new AuditStore(db));
  if (!db.readonly && hasTable(db, 'audit_journal')) await foldLocalJournals(store, home);
  return {
    store,
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

export function auditCommand(program: Command): void {
  program
    .command('audit')
    .description("Show the audit log of actions run in users' browsers (and more with audit.all_backends).")
    .option('--session <id>', 'only this session')
    .option('--limit <n>', `how many recent entries (1-${MAX_AUDIT_LIMIT}, default 50)`, parseLimit, 50)
    .option('--follow', 'keep printing new entries as they are written (Ctrl-C stops)')
    .option('--json', 'one JSON object per line')
    .action(async (options: AuditOptions) => {
      let reader: AuditReader;
      try {
        const config = loadConfig({ env: process.env });
        reader = await openAuditReader(config.home, config.store.url);
      } catch (error) {
        const message =
          error instanceof ConfigError || error instanceof Error ? error.message : String(error);
        process.stderr.write(`tabgate audit: ${message}\n`);
        process.exitCode = 1;
        return;
      }
      const print = (entries: AuditEntry[]) => {
        for (const entry of entries)
          process.stdout.write((options.json ? JSON.stringify(entry) : formatEntry(entry)) + '\n');
      };
      let entries = await reader.store.list({ session: options.session, limit: options.limit });
      print(entries);
      if (!options.follow) {
        await reader.close();
        return;
      }
      let after = entries.at(-1)?.id ?? 0;
      let stopped = false;
      // One read at a time: the next waits for the last, so a slow store never stacks reads.
      const follow = async () => {
        while (!stopped) {
          try {
            entries = await reader.store.list({ session: options.session, after, limit: MAX_AUDIT_LIMIT });
            print(entries);
            after = entries.at(-1)?.id ?? after;
          } catch (error) {
            process.stderr.write(`tabgate audit: ${(error as Error).message}; retrying\n`);
          }
          await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
        }
      };
      void follow();
      const stop = () => {
        stopped = true;
        void reader.close().finally(() => process.exit(0));
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
}
