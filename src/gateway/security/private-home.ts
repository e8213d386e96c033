/**
 * The home folder holds the API key, the operator key, the vault, provider credentials, pairing grant hashes and the audit log, so
 * it is the owner's alone: created 0700, and when it already exists looser (made by hand so that
 * config.yaml could be written first, or by an older tabgate that let SQLite pick 0644 files), tightened
 * at start with a log line saying what changed. The files tabgate keeps in it lose their group and other
 * bits the same way; the user's own files (config.yaml, plugins) are left alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log/logger.js';
import { envFilePath } from '../../providers/env-file.js';
import { journalDir } from '../audit/journal-recovery.js';
import { apiKeyFile } from '../auth/api-key.js';
import { operatorKeyFile } from '../operator/operator-key.js';
import { vaultFile, vaultKeyFile } from '../secrets/vault-files.js';
import { STATE_DB_FILE } from '../store/database.js';
import { createPrivateDir, removeOthersAccess } from './private-files.js';

const octal = (mode: number) => mode.toString(8).padStart(3, '0');

/** What tabgate itself writes in the home folder, besides the audit journal's files. */
function ownFiles(home: string): string[] {
  const db = path.join(home, STATE_DB_FILE);
  return [
    db,
    `${db}-wal`,
    `${db}-shm`,
    `${db}-journal`,
    apiKeyFile(home),
    operatorKeyFile(home),
    envFilePath(home),
    vaultFile(home),
    vaultKeyFile(home),
  ];
}

function journalFiles(dir: string): string[] {
  try {
    return fs.readdirSync(dir).map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

export function securePrivateHome(home: string, log: Logger): void {
  if (createPrivateDir(home)) return;
  const journal = journalDir(home);
  for (const target of [home, journal, ...ownFiles(home), ...journalFiles(journal)]) {
    let before: number | null;
    try {
      before = removeOthersAccess(target);
    } catch (error) {
      // Fail closed: serving with the audit log or the key open to other users is not an option.
      throw new Error(
        `${target} is open to other users and tabgate could not change that (${(error as Error).message}). Run: chmod go-rwx ${target}`,
      );
    }
    if (before === null) continue;
    log.warn('tightened permissions: other users could open this', {
      path: target,
      mode_before: octal(before),
      mode_now: octal(before & 0o700),
    });
  }
}
