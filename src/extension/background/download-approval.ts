/**
 * Whether a download the shared tab started may go on: asked for in the popup when the session's
 * policy has the `download` class, unless the person approved the click that started it a moment ago
 * (that approval covers the download it starts, once).
 */
import { TabgateError } from '../../protocol/index.js';
import type { TabApprovals } from './tab-approvals.js';

/** How long the approval of a click on a download link lets the download it starts through. */
const APPROVED_CLICK_PASS_MS = 15_000;

export interface DownloadRefusal {
  code: 'approval_denied' | 'approval_timeout' | 'approval_unavailable';
  reason: string;
}

export interface DownloadAsk {
  sessionId: string;
  name: string;
  size: number | undefined;
  url: string;
  /** The agent's action it came from (`download` when none is running): what the popup shows. */
  action: () => string;
}

export class DownloadApproval {
  /** Sessions whose person just approved a click on a download link, until when. */
  private readonly passes = new Map<string, number>();

  constructor(private readonly approvals: TabApprovals) {
    approvals.onDownloadApproved = (sessionId) =>
      this.passes.set(sessionId, Date.now() + APPROVED_CLICK_PASS_MS);
  }

  /** Null when it may go on; else why not, as the approval would have refused the action. */
  async decide({ sessionId, name, size, url, action }: DownloadAsk): Promise<DownloadRefusal | null> {
    const pass = this.passes.get(sessionId);
    if (pass !== undefined && pass >= Date.now()) {
      // The person approved the click that started it, a moment ago: once.
      this.passes.delete(sessionId);
      return null;
    }
    let state;
    try {
      state = await this.approvals.read(sessionId);
    } catch {
      return {
        code: 'approval_unavailable',
        reason: 'not asked for (the approval policy could not be read)',
      };
    }
    if (state.stopped)
      return { code: 'approval_denied', reason: 'cancelled: the person stopped this session' };
    if (!state.policy.classes.includes('download')) return null;
    let origin = 'null';
    try {
      origin = new URL(url).origin;
    } catch {
      // Stays unnamed.
    }
    try {
      await this.approvals.askDownload(
        sessionId,
        action(),
        { url: url.slice(0, 500), name },
        {
          ref: null,
          frameOrigin: origin,
          classes: ['download'],
          summary: `download ${JSON.stringify(name.slice(0, 100))}${size !== undefined ? `, ${size} bytes` : ''} from ${url.slice(0, 200)}`,
        },
        new AbortController().signal,
      );
      return null;
    } catch (error) {
      if (error instanceof TabgateError && error.code === 'approval_timeout')
        return { code: 'approval_timeout', reason: 'not approved in time' };
      return { code: 'approval_denied', reason: 'denied by the person' };
    }
  }
}
