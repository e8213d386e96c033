/**
 * One session live: its page's latest screenshot, the action timeline (arguments redacted by the
 * gateway), and Stop / Resume, which cancel the running call and refuse the next ones until resumed.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { ActionEntry } from '../gateway/activity/session-activity.js';
import type { SessionSummary } from '../gateway/activity/session-summary.js';
import { act, ApiError, request } from './api.js';
import { argumentsText, duration, when } from './format.js';
import { TakeoverPanel } from './takeover-panel.js';

export function SessionView(props: {
  session: SessionSummary | undefined;
  timeline: ActionEntry[];
  screenshotSeq: number;
  onChanged: () => void;
}) {
  const { session, timeline } = props;
  const [image, setImage] = useState<string | null>(null);
  const [message, setMessage] = useState('');
  /** Bumped while a takeover waits: the person's step shows without an agent action. */
  const [looks, setLooks] = useState(0);
  const id = session?.session_id;

  useEffect(() => {
    if (!id) return;
    let url: string | null = null;
    let live = true;
    request('GET', `/v1/dashboard/sessions/${encodeURIComponent(id)}/screenshot`)
      .then((response) => response.blob())
      .then((blob) => {
        if (!live) return;
        url = URL.createObjectURL(blob);
        setImage(url);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [id, props.screenshotSeq, looks]);

  if (!session) return html`<p>This session does not exist (any more).</p>`;
  const stopped = session.stopped_at !== null;
  const toggle = async () => {
    try {
      const verb = stopped ? 'resume' : 'stop';
      await act('POST', `/v1/sessions/${encodeURIComponent(session.session_id)}/${verb}`);
      setMessage(
        stopped
          ? 'Resumed: the agent may act again.'
          : 'Stopped: the running call was cancelled; nothing runs until you resume.',
      );
      props.onChanged();
    } catch (error) {
      setMessage(error instanceof ApiError ? `Not done: ${error.message} (${error.code})` : 'Not done.');
    }
  };
  return html`<section aria-labelledby="session-title">
    <h2 id="session-title">${session.title ?? session.session_id}</h2>
    <!-- Above the page's title and status, which change with every action: Stop stays where the person
         reaches for it. -->
    <p>
      <button type="button" id="stop" class=${stopped ? '' : 'danger'} onClick=${toggle}>
        ${stopped ? 'Resume' : 'Stop'}
      </button>
      <span role="status" id="action-status">${message}</span>
    </p>
    <p>
      ${session.backend.label}
      ${
        session.backend.live_url
          ? html` (<a href=${session.backend.live_url} target="_blank" rel="noopener noreferrer" id="live-url"
                >watch it live</a
              >)`
          : ''
      }${' · '}<span class=${`status status-${session.status.replace(/ /g, '-')}`} id="session-status"
        >${session.status}</span
      >
      ${
        session.page
          ? html` · ${session.page.current ? 'on ' : 'last seen on '}<span class="page"
                >${session.page.title || session.page.url}</span
              >`
          : ''
      }
    </p>
    <${TakeoverPanel}
      sessionId=${session.session_id}
      liveUrl=${session.backend.live_url}
      onTick=${() => setLooks((n) => n + 1)}
    />
    <div class="live">
      <figure>
        ${
          image
            ? html`<img
                id="screenshot"
                src=${image}
                alt=${`The latest screenshot of ${session.page?.url ?? 'the page'}`}
              />`
            : html`<p class="empty">No screenshot yet: one is taken after the agent's next action.</p>`
        }
        <figcaption>Latest screenshot (refreshed after each action, at most once a second)</figcaption>
      </figure>
      <ol class="timeline" id="timeline" aria-label="Actions, newest first">
        ${[...timeline].reverse().map(
          (a) =>
            html`<li
              key=${a.seq}
              class=${a.outcome === null ? 'running' : a.outcome === 'ok' ? 'ok' : 'error'}
            >
              <strong>${a.tool}</strong> <code>${argumentsText(a.arguments)}</code>
              <span> → ${a.outcome ?? 'running'} · ${duration(a.duration_ms)} · ${when(a.started_at)}</span>
            </li>`,
        )}
      </ol>
    </div>
  </section>`;
}
