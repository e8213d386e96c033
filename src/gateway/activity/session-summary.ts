/**
 * One line of the dashboard's sessions list: who serves the session, what it is doing, what it did last.
 * Built from the stored record, the running calls and the recent actions; nothing secret is in it.
 */
import type { SessionBrowserInfo } from '../backends/backend.js';
import type { SessionRecord } from '../service.js';
import type { ActionEntry, LastPage } from './session-activity.js';

export type SessionStatus = 'idle' | 'acting' | 'waiting for a browser' | 'failed closed' | 'stopped';

export interface SessionSummary {
  session_id: string;
  title: string | null;
  created_at: string;
  source: string;
  /**
   * `tab`: the user's own tab through a paired extension; else the backend that serves it, with the
   * provider's live view where it gives one (an http(s) address only: it becomes a link).
   */
  backend: { kind: 'tab' | 'local' | 'cdp-url' | 'provider'; label: string; live_url?: string };
  status: SessionStatus;
  stopped_at: string | null;
  last_action: Pick<ActionEntry, 'tool' | 'outcome' | 'started_at' | 'duration_ms'> | null;
  page: LastPage | null;
}

/** A provider's live view address, if it is one a link may point at (never `javascript:` and the like). */
function webAddress(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who serves the session: its own browser where the backend knows it (a session keeps the browser it
 * opened on after the selection changes), else the gateway's current backend.
 */
export function backendOf(
  record: SessionRecord,
  backendName: string,
  browser?: SessionBrowserInfo,
): SessionSummary['backend'] {
  if (record.binding) {
    const controller = record.binding.controller_id ?? 'unknown';
    return { kind: 'tab', label: `your tab, through the paired browser's controller ${controller}` };
  }
  const name = browser?.backend ?? backendName;
  if (name === 'local') return { kind: 'local', label: 'local Chromium' };
  if (name === 'cdp-url') return { kind: 'cdp-url', label: 'browser at the configured CDP URL' };
  const liveUrl = webAddress(browser?.live_url);
  return {
    kind: 'provider',
    label: `cloud browser: ${browser?.provider ?? name}`,
    ...(liveUrl ? { live_url: liveUrl } : {}),
  };
}

export function statusOf(
  record: SessionRecord,
  running: number,
  last: ActionEntry | undefined,
): SessionStatus {
  if (record.stopped_at !== null) return 'stopped';
  if (running > 0) return 'acting';
  if (record.binding?.state === 'stopped' || record.binding?.state === 'revoked') return 'failed closed';
  if (last?.outcome === 'controller_unavailable') return 'waiting for a browser';
  return 'idle';
}

export function summarize(
  record: SessionRecord,
  facts: {
    backendName: string;
    /** What the backend knows of the session's own browser, when it has opened one. */
    browser?: SessionBrowserInfo;
    running: number;
    last: ActionEntry | undefined;
    page: LastPage | null;
  },
): SessionSummary {
  const { last } = facts;
  return {
    session_id: record.session_id,
    title: record.title,
    created_at: record.created_at,
    source: record.source,
    backend: backendOf(record, facts.backendName, facts.browser),
    status: statusOf(record, facts.running, last),
    stopped_at: record.stopped_at,
    last_action: last
      ? { tool: last.tool, outcome: last.outcome, started_at: last.started_at, duration_ms: last.duration_ms }
      : null,
    page: facts.page,
  };
}
