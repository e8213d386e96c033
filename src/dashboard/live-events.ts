/**
 * The dashboard's one live stream (server-sent events read through fetch, because EventSource cannot
 * send the owner's proof header). It reconnects after a second with `Last-Event-ID` set to the last
 * audit row it received, so no row is lost across a drop; nothing here retries faster than once a second.
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

/** The tab's stream, as the page holds it. */
export interface LiveStream {
  /**
   * The session whose actions the stream carries (its live view is open), or none: the stream is opened
   * again at once for it, the audit rows resuming after the last one received. Resolves once the new
   * stream is open, so a timeline read after it misses no action.
   */
  follow(sessionId: string | null): Promise<void>;
  stop(): void;
}

/** Follows `/v1/dashboard/events` until `stop` is called; `after` is the newest audit row already shown. */
export function followEvents(
  after: number | null,
  onEvent: (event: LiveEvent) => void,
  onState: (live: boolean) => void,
): LiveStream {
  let lastId = after === null ? null : String(after);
  let stopped = false;
  let live = false;
  let following: string | null = null;
  /** The open stream was closed to follow another session: open the next at once, not after a second. */
  let switching = false;
  const whenOpen: (() => void)[] = [];
  let controller: AbortController | null = null;
  const connect = async (): Promise<void> => {
    while (!stopped) {
      controller = new AbortController();
      switching = false;
      const query = following === null ? '' : `?session=${encodeURIComponent(following)}`;
      try {
        const response = await fetch(`/v1/dashboard/events${query}`, {
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
        // Dropped, refused, or closed to follow another session: opened again below.
      }
      live = false;
      if (switching || stopped) continue;
      onState(false);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  };
  void connect();
  return {
    follow(sessionId) {
      if (stopped || (sessionId === following && live)) return Promise.resolve();
      const open = new Promise<void>((resolve) => whenOpen.push(resolve));
      if (sessionId !== following) {
        following = sessionId;
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
