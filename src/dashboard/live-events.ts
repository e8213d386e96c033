/**
 * The dashboard's one live stream (server-sent events read through fetch, because EventSource cannot
 * send the owner's proof header). It reconnects after a second with `Last-Event-ID` set to the last
 * audit row it received, so no row is lost across a drop; nothing here retries faster than once a second.
 * It carries audit rows only while the Activity view shows them.
 */
import { ownerHeaders } from './api.js';

export interface LiveEvent {
  event: string;
  data: unknown;
  id: string | null;
}

const RETRY_MS = 1000;

/**
 * Splits an SSE text stream into events; returns what is left of an unfinished one. `onId` hears the id
 * of every block that has one, a block without data included (the stream's first, which says where it
 * starts), as EventSource keeps the last event id.
 */
export function parseEvents(
  buffer: string,
  emit: (event: LiveEvent) => void,
  onId?: (id: string) => void,
): string {
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end !== -1; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    let event = 'message';
    let id: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (id !== null) onId?.(id);
    if (data.length > 0) emit({ event, id, data: JSON.parse(data.join('\n')) as unknown });
  }
  return rest;
}

/** What the tab shows, as far as its stream is concerned. */
export interface StreamView {
  /** The session whose live view is open: its actions are sent. */
  session: string | null;
  /**
   * The Activity view is open: the audit rows after this id are sent (the newest the page read).
   * Null on any other view, whose stream carries no rows (`?audit=0`).
   */
  auditAfter: number | null;
}

/** The tab's stream, as the page holds it. */
export interface LiveStream {
  /**
   * Opens the stream for what the tab now shows (the first call opens it; a later one with another
   * session, or into or out of the Activity view, opens it again at once). Resolves once the stream is
   * open, so a timeline or an activity list read before it misses nothing after it.
   */
  show(view: StreamView): Promise<void>;
  stop(): void;
}

/** The query string of the stream for `view`. */
export function streamQuery(view: StreamView): string {
  const query = new URLSearchParams();
  if (view.session !== null) query.set('session', view.session);
  if (view.auditAfter === null) query.set('audit', '0');
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** Follows `/v1/dashboard/events` from the first `show` until `stop` is called. */
export function followEvents(
  onEvent: (event: LiveEvent) => void,
  onState: (live: boolean) => void,
): LiveStream {
  let lastId: string | null = null;
  let stopped = false;
  let live = false;
  let shown: StreamView | null = null;
  /** The open stream was closed to show another view: open the next at once, not after a second. */
  let switching = false;
  const whenOpen: (() => void)[] = [];
  let controller: AbortController | null = null;
  const connect = async (): Promise<void> => {
    while (!stopped && shown !== null) {
      controller = new AbortController();
      switching = false;
      try {
        const response = await fetch(`/v1/dashboard/events${streamQuery(shown)}`, {
          credentials: 'same-origin',
          cache: 'no-store',
          signal: controller.signal,
          headers: { ...ownerHeaders(), ...(lastId === null ? {} : { 'last-event-id': lastId }) },
        });
        if (response.ok && response.body) {
          live = true;
          onState(true);
          for (const resolve of whenOpen.splice(0)) resolve();
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer = parseEvents(buffer + value, onEvent, (id) => (lastId = id));
          }
        }
      } catch {
        // Dropped, refused, or closed to show another view: opened again below.
      }
      live = false;
      if (switching || stopped) continue;
      onState(false);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  };
  return {
    show(view) {
      const same =
        shown !== null &&
        view.session === shown.session &&
        // Rows keep coming while the Activity view stays open: only entering it starts over.
        (view.auditAfter === null) === (shown.auditAfter === null);
      if (stopped || (same && live)) return Promise.resolve();
      const open = new Promise<void>((resolve) => whenOpen.push(resolve));
      if (same) return open;
      const first = shown === null;
      shown = view;
      // The rows the page just read end here; a stream without rows resumes from nothing.
      lastId = view.auditAfter === null ? null : String(view.auditAfter);
      if (first) void connect();
      else {
        switching = true;
        controller?.abort();
      }
      return open;
    },
    stop() {
      stopped = true;
      controller?.abort();
      for (const resolve of whenOpen.splice(0)) resolve();
    },
  };
}
