/**
 * How a call learns that its caller went away: the part of AbortSignal the gateway uses, so an MCP
 * request's AbortSignal passes as it is and the HTTP layer can offer one without building an
 * AbortController (an EventTarget) for every request.
 */
export interface CallSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
