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

/** Splits an SSE text stream into events; returns what is left of an unfinished one. */
export function parseEvents(buffer: string, emit: (event: LiveEvent) => void): string {
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
    if (data.length > 0) emit({ event, id, data: JSON.parse(data.join('\n')) as unknown });
  }
  return rest;
}

/** Follows `/v1/dashboard/events` until `stop` is called; `after` is the newest audit row already shown. */
export function followEvents(
  after: number | null,
  onEvent: (event: LiveEvent) => void,
  onState: (live: boolean) => void,
): () => void {
  let lastId = after === null ? null : String(after);
  let stopped = false;
  let controller: AbortController | null = null;
  const connect = async (): Promise<void> => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const response = await fetch('/v1/dashboard/events', {
          credentials: 'same-origin',
          cache: 'no-store',
          signal: controller.signal,
          headers: { ...ownerHeaders(), ...(lastId === null ? {} : { 'last-event-id': lastId }) },
        });
        if (response.ok && response.body) {
          onState(true);
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer = parseEvents(buffer + value, (event) => {
              if (event.id !== null) lastId = event.id;
              onEvent(event);
            });
          }
        }
      } catch {
        // Dropped or refused: try again below.
      }
      onState(false);
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  };
  void connect();
  return () => {
    stopped = true;
    controller?.abort();
  };
}
