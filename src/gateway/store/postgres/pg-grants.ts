/** Site grants and pairing grants in PostgreSQL: the same rows and answers as the SQLite stores'. */
import type { Pool } from 'pg';
import type { PairingGrant } from '../../pairing/grant-store.js';
import type { GrantRow } from '../../sites/grant-store.js';
import type { PairingGrantRows, SiteGrantRows } from '../store.js';

export function pgSiteGrants(pool: Pool): SiteGrantRows {
  return {
    async request(sessionId, site, at) {
      // Asking again never downgrades a grant.
      await pool.query(
        `INSERT INTO site_grants (session_id, site, state, changed_at) VALUES ($1, $2, 'requested', $3)
           ON CONFLICT (session_id, site) DO NOTHING`,
        [sessionId, site, at],
      );
    },
    async grant(sessionId, site, at) {
      await pool.query(
        `INSERT INTO site_grants (session_id, site, state, changed_at) VALUES ($1, $2, 'granted', $3)
           ON CONFLICT (session_id, site) DO UPDATE SET state = 'granted', changed_at = excluded.changed_at`,
        [sessionId, site, at],
      );
    },
    async revoke(sessionId, site) {
      const { rowCount } = await pool.query('DELETE FROM site_grants WHERE session_id = $1 AND site = $2', [
        sessionId,
        site,
      ]);
      return rowCount === 1;
    },
    async list(sessionId) {
      const { rows } = await pool.query<GrantRow>(
        'SELECT session_id, site, state, changed_at FROM site_grants WHERE session_id = $1 ORDER BY seq',
        [sessionId],
      );
      return rows;
    },
    async listAll() {
      const { rows } = await pool.query<GrantRow>(
        'SELECT session_id, site, state, changed_at FROM site_grants ORDER BY seq',
      );
      return rows;
    },
    async dropSession(sessionId) {
      await pool.query('DELETE FROM site_grants WHERE session_id = $1', [sessionId]);
    },
  };
}

interface PairingRow extends PairingGrant {
  secret_hash: Buffer;
}

const withHash = ({ secret_hash, ...grant }: PairingRow) => ({ grant, secretHash: secret_hash });

export function pgPairingGrants(pool: Pool): PairingGrantRows {
  const get = async (grantId: string) => {
    const { rows } = await pool.query<PairingRow>('SELECT * FROM pairing_grants WHERE grant_id = $1', [
      grantId,
    ]);
    return rows[0] ? withHash(rows[0]) : null;
  };
  return {
    async insert(grant) {
      await pool.query(
        `INSERT INTO pairing_grants (grant_id, secret_hash, name, origin, created_at)
           VALUES ($1, $2, $3, $4, $5)`,
        [grant.grantId, grant.secretHash, grant.name, grant.origin, grant.createdAt],
      );
      const stored = await get(grant.grantId);
      if (!stored) throw new Error('pairing grant vanished right after insert');
      return stored.grant;
    },
    async listWithHashes() {
      const { rows } = await pool.query<PairingRow>(
        'SELECT * FROM pairing_grants ORDER BY created_at, grant_id',
      );
      return rows.map(withHash);
    },
    get,
    async revoke(grantId, at) {
      const { rowCount } = await pool.query(
        'UPDATE pairing_grants SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL',
        [at, grantId],
      );
      return rowCount === 1;
    },
    async touch(grantId, at) {
      await pool.query('UPDATE pairing_grants SET last_used_at = $1 WHERE grant_id = $2', [at, grantId]);
    },
  };
}
