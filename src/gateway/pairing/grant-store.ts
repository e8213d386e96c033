/**
 * Pairing grants in the gateway's SQLite file: one row per approved extension, holding the hash of its
 * token (never the token), who it is (name, origin) and its life (created, last used, revoked). The
 * table is created here, on the gateway's own handle, so the store's migrations need not know pairing.
 */
import type { Db } from '../store/database.js';

export interface PairingGrant {
  grant_id: string;
  name: string;
  origin: string;
  /** ISO 8601. */
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface Row extends PairingGrant {
  secret_hash: Buffer;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS pairing_grants (
  grant_id TEXT PRIMARY KEY,
  secret_hash BLOB NOT NULL,
  name TEXT NOT NULL,
  origin TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
)`;

/** How stale `last_used_at` may get before a use writes it again: one write per minute, not per request. */
const TOUCH_INTERVAL_MS = 60_000;

/** Whether a use at `at` is worth writing: `last_used_at` is a minute old or more. */
export function touchDue(grant: PairingGrant, at: Date): boolean {
  const last = grant.last_used_at ? Date.parse(grant.last_used_at) : 0;
  return at.getTime() - last >= TOUCH_INTERVAL_MS;
}

const toGrant = ({ secret_hash: _hash, ...grant }: Row): PairingGrant => grant;

export class PairingGrantStore {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly listStmt;
  private readonly revokeStmt;
  private readonly touchStmt;

  constructor(db: Db) {
    db.exec(SCHEMA);
    this.insertStmt = db.prepare<[string, Buffer, string, string, string]>(
      'INSERT INTO pairing_grants (grant_id, secret_hash, name, origin, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.byIdStmt = db.prepare<[string], Row>('SELECT * FROM pairing_grants WHERE grant_id = ?');
    this.listStmt = db.prepare<[], Row>('SELECT * FROM pairing_grants ORDER BY created_at, grant_id');
    this.revokeStmt = db.prepare<[string, string]>(
      'UPDATE pairing_grants SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL',
    );
    this.touchStmt = db.prepare<[string, string]>(
      'UPDATE pairing_grants SET last_used_at = ? WHERE grant_id = ?',
    );
  }

  insert(grant: {
    grantId: string;
    secretHash: Buffer;
    name: string;
    origin: string;
    createdAt: string;
  }): PairingGrant {
    this.insertStmt.run(grant.grantId, grant.secretHash, grant.name, grant.origin, grant.createdAt);
    return this.get(grant.grantId) as PairingGrant;
  }

  get(grantId: string): PairingGrant | null {
    const row = this.byIdStmt.get(grantId);
    return row ? toGrant(row) : null;
  }

  /** A grant with its token hash, revoked or not. */
  getWithHash(grantId: string): { grant: PairingGrant; secretHash: Buffer } | null {
    const row = this.byIdStmt.get(grantId);
    return row ? { grant: toGrant(row), secretHash: row.secret_hash } : null;
  }

  listWithHashes(): { grant: PairingGrant; secretHash: Buffer }[] {
    return this.listStmt.all().map((row) => ({ grant: toGrant(row), secretHash: row.secret_hash }));
  }

  /** The stored hash of a live (unrevoked) grant, for the token check; null when unknown or revoked. */
  liveSecretHash(grantId: string): Buffer | null {
    const row = this.byIdStmt.get(grantId);
    return row && row.revoked_at === null ? row.secret_hash : null;
  }

  list(): PairingGrant[] {
    return this.listStmt.all().map(toGrant);
  }

  /** Marks the grant revoked; false when it is unknown or was revoked already. */
  revoke(grantId: string, at: Date): boolean {
    return this.revokeStmt.run(at.toISOString(), grantId).changes === 1;
  }

  /** Records a use, at most once a minute per grant. */
  touch(grant: PairingGrant, at: Date): void {
    if (!touchDue(grant, at)) return;
    this.touchStmt.run(at.toISOString(), grant.grant_id);
  }

  /** Writes `last_used_at` whatever it was. */
  touchNow(grantId: string, at: string): void {
    this.touchStmt.run(at, grantId);
  }
}
