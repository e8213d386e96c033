/**
 * Who widened or narrowed where a session may go: every grant, revoke and deny, by the owner
 * (`tabgate grants`, the dashboard's routes) or by the person in the extension's popup, is a row of the
 * audit log (`site.grant`, `site.revoke`, `site.deny`) with the site and the channel it came through.
 */
import type { AuditLog } from '../audit/index.js';
import type { Caller } from '../service.js';

export type GrantChange = 'grant' | 'revoke' | 'deny';
export type GrantChannel = 'owner' | 'extension';

export class GrantAudit {
  constructor(private readonly audit: AuditLog | undefined) {}

  /** Runs the change and logs it with how it ended (a refused change too). */
  record<T>(
    caller: Caller,
    sessionId: string,
    change: GrantChange,
    site: unknown,
    channel: GrantChannel,
    run: () => Promise<T>,
  ): Promise<T> {
    if (!this.audit) return run();
    return this.audit.track(
      {
        caller,
        sessionId,
        action: `site.${change}`,
        arguments: { site: typeof site === 'string' ? site.slice(0, 300) : null, channel },
        toolCallId: null,
        backend: 'owner',
        controllerId: null,
      },
      run,
    );
  }
}
