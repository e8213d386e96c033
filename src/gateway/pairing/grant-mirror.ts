/**
 * The pairing grants as the token check sees them: every grant, with its token hash, held in memory,
 * so that checking a bearer (on every request a controller makes) never waits for the store. Loaded at
 * start, written through by this gateway, and, when other gateways share the store, kept by its change
 * feed: a grant revoked on another gateway is told to `onRevoked` here too, which closes its sockets.
 */
import type { PairingGrantRows, NewPairingGrant, StoreChange } from '../store/store.js';
import { touchDue, type PairingGrant } from './grant-store.js';

interface Held {
  grant: PairingGrant;
  secretHash: Buffer;
}

export class PairingGrants {
  private readonly held = new Map<string, Held>();
  private readonly revokedListeners = new Set<(grantId: string) => void>();

  private constructor(
    private readonly store: PairingGrantRows,
    private readonly onError: (message: string) => void,
  ) {}

  static async load(store: PairingGrantRows, onError: (message: string) => void): Promise<PairingGrants> {
    const grants = new PairingGrants(store, onError);
    await grants.reloadAll();
    return grants;
  }

  /** Told of each grant that became revoked through another gateway. */
  onRevoked(listener: (grantId: string) => void): void {
    this.revokedListeners.add(listener);
  }

  async insert(grant: NewPairingGrant): Promise<PairingGrant> {
    const stored = await this.store.insert(grant);
    this.held.set(stored.grant_id, { grant: stored, secretHash: grant.secretHash });
    return stored;
  }

  get(grantId: string): PairingGrant | null {
    return this.held.get(grantId)?.grant ?? null;
  }

  /** The stored hash of a live (unrevoked) grant, for the token check; null when unknown or revoked. */
  liveSecretHash(grantId: string): Buffer | null {
    const held = this.held.get(grantId);
    return held && held.grant.revoked_at === null ? held.secretHash : null;
  }

  /** Oldest first. */
  list(): PairingGrant[] {
    return [...this.held.values()]
      .map((held) => held.grant)
      .sort((a, b) =>
        a.created_at === b.created_at
          ? a.grant_id.localeCompare(b.grant_id)
          : a.created_at.localeCompare(b.created_at),
      );
  }

  /** Marks the grant revoked; false when it is unknown or was revoked already. */
  async revoke(grantId: string, at: Date): Promise<boolean> {
    const revoked = await this.store.revoke(grantId, at.toISOString());
    // Marked here first: the caller tells its own listeners, so the reload must not tell them again.
    const held = this.held.get(grantId);
    if (revoked && held) held.grant = { ...held.grant, revoked_at: at.toISOString() };
    await this.reload(grantId);
    return revoked;
  }

  /** Records a use, at most once a minute per grant; the write is not waited for. */
  touch(grant: PairingGrant, at: Date): void {
    if (!touchDue(grant, at)) return;
    const held = this.held.get(grant.grant_id);
    const last_used_at = at.toISOString();
    if (held) held.grant = { ...held.grant, last_used_at };
    this.store.touch(grant.grant_id, last_used_at).catch((error: unknown) => {
      this.onError(`pairing grant use not recorded: ${(error as Error).message}`);
    });
  }

  /** Another gateway changed a grant (or, `*`, perhaps any): read it again. */
  async storeChanged(change: StoreChange): Promise<void> {
    if (change.table === '*') await this.reloadAll();
    else if (change.table === 'pairing_grants') await this.reload(change.key);
  }

  private async reload(grantId: string): Promise<void> {
    const fresh = await this.store.get(grantId);
    this.replace(grantId, fresh);
  }

  private async reloadAll(): Promise<void> {
    const all = await this.store.listWithHashes();
    const seen = new Set<string>();
    for (const held of all) {
      seen.add(held.grant.grant_id);
      this.replace(held.grant.grant_id, held);
    }
    for (const grantId of [...this.held.keys()]) if (!seen.has(grantId)) this.replace(grantId, null);
  }

  private replace(grantId: string, fresh: Held | null): void {
    const before = this.held.get(grantId);
    if (fresh) this.held.set(grantId, fresh);
    else this.held.delete(grantId);
    const wasLive = before !== undefined && before.grant.revoked_at === null;
    const isLive = fresh !== null && fresh.grant.revoked_at === null;
    if (wasLive && !isLive) for (const listener of this.revokedListeners) listener(grantId);
  }
}
