/**
 * Where the CDP backends get the site rules of a session (docs/safety.md): the gateway's site policies,
 * which change while a session runs when the owner grants or revokes a site. Without a source (an
 * embedder that wires none) a backend judges no sites, as before this layer existed.
 */
import type { SiteRules } from '../../protocol/index.js';

export interface SiteRulesSource {
  /** The rules for one session on a local (`remote: false`) or remote browser. Never throws. */
  rulesFor(sessionId: string, remote: boolean): SiteRules;
  /** The rules without any session's grants: for a frame traced to no session. */
  baseRules(remote: boolean): SiteRules;
}
