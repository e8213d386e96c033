/**
 * The site policy in force for each session (docs/safety.md): `safety:` from config.yaml, the sites the
 * session asked for when it was created, and the grants the owner made. Rules are compiled once per
 * session and dropped whenever a grant changes, so the network guard's per-navigation question is a
 * Map lookup and a few pattern comparisons. The grants of every session are held in memory (loaded at
 * start, kept by this gateway's own writes and, with a shared store, by the store's change feed), so
 * that question never waits for the store. Anything that goes wrong building a policy yields the
 * policy that refuses everything: a session never runs looser than written because of a failure.
 */
import {
  REFUSE_ALL_POLICY,
  SiteRules,
  TabgateError,
  normalizeSitePattern,
  type SitePolicy,
} from '../../protocol/index.js';
import type { SiteRulesSource } from '../backends/site-rules-source.js';
import type { Clock } from '../clock.js';
import type { SafetyConfig } from '../config/safety-schema.js';
import type { SiteGrantRows, StoreChange } from '../store/store.js';
import type { GrantRow } from './grant-store.js';

/** Which browser a session runs in, which picks its mode. */
export type SiteBrowser = 'user_tab' | 'local' | 'remote';

/** What `GET /v1/sessions/{id}` shows as `sites`. */
export interface SitePolicyView {
  browser: SiteBrowser;
  mode: SitePolicy['mode'];
  allow: readonly string[];
  deny: readonly string[];
  granted: string[];
  /** Asked for by the session, not granted (yet): the owner sees these in the popup and the CLI. */
  requested: string[];
  blocked_categories: readonly string[];
}

/** A session asks for at most this many sites up front. */
export const MAX_REQUESTED_SITES = 50;

export class SitePolicies implements SiteRulesSource {
  private readonly compiled = new Map<string, SiteRules>();
  /** Every session's rows, in the store's order; a session without rows is absent. */
  private readonly grants = new Map<string, GrantRow[]>();
  /** Reloads started per session: only the latest one's answer is kept. */
  private readonly reloads = new Map<string, number>();

  constructor(
    private readonly safety: SafetyConfig,
    private readonly store: SiteGrantRows,
    private readonly clock: Clock,
  ) {}

  /** Reads every session's rows from the store (at start, and when the change feed was lost). */
  async loadAll(): Promise<void> {
    const rows = await this.store.listAll();
    this.grants.clear();
    for (const row of rows) {
      const list = this.grants.get(row.session_id);
      if (list) list.push(row);
      else this.grants.set(row.session_id, [row]);
    }
    this.compiled.clear();
  }

  /** Another gateway changed a session's rows (or, `*`, perhaps anything): read them again. */
  storeChanged(change: StoreChange): Promise<void> {
    if (change.table === '*') return this.loadAll();
    if (change.table !== 'site_grants') return Promise.resolve();
    return this.reload(change.key);
  }

  private async reload(sessionId: string): Promise<void> {
    const started = (this.reloads.get(sessionId) ?? 0) + 1;
    this.reloads.set(sessionId, started);
    const rows = await this.store.list(sessionId);
    if (this.reloads.get(sessionId) !== started) return;
    this.reloads.delete(sessionId);
    this.setRows(sessionId, rows);
  }

  private setRows(sessionId: string, rows: GrantRow[]): void {
    if (rows.length > 0) this.grants.set(sessionId, rows);
    else this.grants.delete(sessionId);
    this.changed(sessionId);
  }

  private rowsOf(sessionId: string): GrantRow[] {
    return this.grants.get(sessionId) ?? [];
  }

  /** The policy of a session in a browser, grants included (`allow-listed` ignores them). */
  policyFor(sessionId: string | null, browser: SiteBrowser): SitePolicy {
    const grants =
      sessionId === null
        ? []
        : this.rowsOf(sessionId)
            .filter((row) => row.state === 'granted')
            .map((row) => row.site);
    return {
      mode: this.safety.mode[browser],
      allow: this.safety.sites.allow,
      deny: this.safety.sites.deny,
      grants,
      blockedCategories: this.safety.blocked_categories,
    };
  }

  rulesFor(sessionId: string, remote: boolean): SiteRules {
    return this.rules(sessionId, remote ? 'remote' : 'local');
  }

  baseRules(remote: boolean): SiteRules {
    return this.rules(null, remote ? 'remote' : 'local');
  }

  rules(sessionId: string | null, browser: SiteBrowser): SiteRules {
    const key = `${browser} ${sessionId ?? ''}`;
    const cached = this.compiled.get(key);
    if (cached) return cached;
    let rules: SiteRules;
    try {
      rules = new SiteRules(this.policyFor(sessionId, browser));
    } catch {
      // Not remembered: the next navigation tries again, and meanwhile nothing is allowed.
      return new SiteRules(REFUSE_ALL_POLICY);
    }
    if (this.compiled.size >= 10_000) this.compiled.clear();
    this.compiled.set(key, rules);
    return rules;
  }

  view(sessionId: string, browser: SiteBrowser): SitePolicyView {
    const rows = this.rowsOf(sessionId);
    const policy = this.policyFor(sessionId, browser);
    return {
      browser,
      mode: policy.mode,
      allow: policy.allow,
      deny: policy.deny,
      granted: rows.filter((row) => row.state === 'granted').map((row) => row.site),
      requested: rows.filter((row) => row.state === 'requested').map((row) => row.site),
      blocked_categories: policy.blockedCategories,
    };
  }

  /** A site list as a session may ask for it, canonical; `invalid_request` otherwise. */
  validate(sites: unknown): string[] {
    return validSites(sites, 'sites');
  }

  /**
   * The sites a session asks for when it is created (its plan), already validated, stored as requests.
   * Asking grants nothing; only the owner grants.
   */
  async request(sessionId: string, sites: readonly string[]): Promise<void> {
    if (sites.length === 0) return;
    for (const site of sites) await this.store.request(sessionId, site, this.now());
    await this.reload(sessionId);
  }

  /** The owner's grant, in force here once this resolves. Returns the site in its canonical form. */
  async grant(sessionId: string, raw: unknown): Promise<string> {
    const [site] = validSites([raw], 'site');
    if (site === undefined) throw new TabgateError('invalid_request', 'site is required.');
    await this.store.grant(sessionId, site, this.now());
    await this.reload(sessionId);
    return site;
  }

  async revoke(sessionId: string, raw: unknown): Promise<boolean> {
    const [site] = validSites([raw], 'site');
    const removed = site !== undefined && (await this.store.revoke(sessionId, site));
    await this.reload(sessionId);
    return removed;
  }

  async forget(sessionId: string): Promise<void> {
    await this.store.dropSession(sessionId);
    this.reloads.delete(sessionId);
    this.setRows(sessionId, []);
  }

  private changed(sessionId: string): void {
    for (const browser of ['user_tab', 'local', 'remote'] as const)
      this.compiled.delete(`${browser} ${sessionId}`);
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

function validSites(sites: unknown, name: string): string[] {
  if (!Array.isArray(sites) || sites.length > MAX_REQUESTED_SITES) {
    throw new TabgateError(
      'invalid_request',
      `${name} must be a list of at most ${MAX_REQUESTED_SITES} origins or host patterns.`,
    );
  }
  return sites.map((raw, index) => {
    const where = name === 'site' ? 'site' : `${name}[${index}]`;
    if (typeof raw !== 'string' || raw.length > 300)
      throw new TabgateError('invalid_request', `${where} must be a string of at most 300 characters.`);
    const normalized = normalizeSitePattern(raw);
    if (!normalized.ok)
      throw new TabgateError(
        'invalid_request',
        `${where}: ${normalized.reason}; write an origin (https://mail.example.com), a host (example.com) or *.example.com.`,
      );
    return normalized.value;
  });
}
