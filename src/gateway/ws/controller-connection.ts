/**
 * One accepted controller socket: frames in (results, heartbeats, detach, and a tabgate controller's
 * download chunks), nothing else. The connection
 * is the owner token of its scope in the broker, so a socket that has been replaced by a reconnect can
 * no longer take the controller offline or detach it.
 *
 * It attaches before the handshake is answered (see ControllerEndpoint): what the broker writes to it
 * meanwhile (deferred cancels, a first command) waits here, in order, and goes out once the socket is
 * open.
 */
import type { WebSocket } from 'ws';
import {
  encodeFrame,
  FRAME_METHODS,
  isSuccessfulResult,
  parseFrame,
  type DownloadParams,
} from '../../protocol/index.js';
import { settle, type ControllerBroker, type MaybePromise } from '../broker/controller-broker.js';
import type { ControllerScope } from '../broker/scope.js';
import type { Logger } from '../../log/logger.js';
import type { UserTabDownloads } from '../user-tab-downloads.js';

/** Consecutive frames that are not protocol frames before the socket is closed with 1008. */
export const GARBAGE_FRAME_LIMIT = 64;

export class ControllerConnection {
  private garbage = 0;
  private ws: WebSocket | null = null;
  /** Written by the broker before the socket opened: sent first, in order, once it has. */
  private early: string[] = [];
  /** A close asked for before the socket opened: done as soon as it has. */
  private closeAsked: { code: number; reason: string } | null = null;
  private gone = false;

  constructor(
    readonly scope: ControllerScope,
    private readonly broker: ControllerBroker,
    private readonly log: Logger,
    /** Where the downloads of a controller with the `browser_downloads` capability are written. */
    private readonly downloads?: UserTabDownloads,
  ) {}

  /** Attaches to the broker; false when the attach failed (the lane is taken offline again). */
  attach(): MaybePromise<boolean> {
    try {
      const attached = this.broker.attach(this.scope, this, (text) => this.send(text));
      return attached instanceof Promise
        ? attached.then(
            () => true,
            (error: unknown) => this.attachFailed(error),
          )
        : true;
    } catch (error) {
      return this.attachFailed(error);
    }
  }

  /** The handshake was answered: frames are read from now on and what waited is written. */
  open(ws: WebSocket): void {
    this.ws = ws;
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => this.abandon());
    ws.on('error', (error) => this.log.debug('controller socket error', { reason: error.message }));
    for (const text of this.early.splice(0)) ws.send(text);
    if (this.closeAsked) ws.close(this.closeAsked.code, this.closeAsked.reason);
  }

  /** The socket closed, or never opened after the attach: the controller goes offline, once. */
  abandon(): void {
    if (this.gone) return;
    this.gone = true;
    this.early = [];
    this.quietly(this.broker.disconnect(this.scope, this));
    void this.downloads?.abandonAll(this);
  }

  close(code: number, reason: string): void {
    if (this.ws) this.ws.close(code, reason);
    else this.closeAsked ??= { code, reason };
  }

  terminate(): void {
    this.ws?.terminate();
  }

  private attachFailed(error: unknown): false {
    this.log.warn('browser controller attach failed', { reason: (error as Error).message });
    this.abandon();
    return false;
  }

  /** A cluster broker's answer is a promise; its failure is logged, never left unhandled. */
  private quietly(result: MaybePromise<unknown>): void {
    if (result instanceof Promise)
      result.catch((error: unknown) =>
        this.log.warn('browser controller event not recorded', { reason: (error as Error).message }),
      );
  }

  send(text: string): void {
    if (this.gone) throw new Error('browser-control websocket is closed');
    if (!this.ws) {
      this.early.push(text);
      return;
    }
    if (this.ws.readyState !== this.ws.OPEN) throw new Error('browser-control websocket is closed');
    this.ws.send(text);
  }

  keepalive(nonce: string): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== ws.OPEN) return;
    ws.send(encodeFrame({ method: FRAME_METHODS.heartbeat, params: { nonce, ok: true } }));
  }

  /** A chunk of a download on the user's tab: written to the lane's session folder, then answered. */
  private download(params: DownloadParams): void {
    // A controller that did not ask for downloads never streams one (protocol v1 has no such frame).
    if (!this.downloads || !this.scope.capabilities.includes('browser_downloads')) return;
    this.downloads.receive(this.scope.session_id, this, params).then(
      (ack) => {
        const ws = this.ws;
        if (ws && ws.readyState === ws.OPEN)
          ws.send(encodeFrame({ method: FRAME_METHODS.downloadAck, params: ack }));
      },
      (error: unknown) => {
        this.log.warn('user tab download not written', { reason: (error as Error).message });
        const ws = this.ws;
        if (ws && ws.readyState === ws.OPEN)
          ws.send(
            encodeFrame({
              method: FRAME_METHODS.downloadAck,
              params: {
                download_id: params.download_id,
                seq: params.seq,
                ok: false,
                info: { name: 'download', size: 0, mime: '', state: 'stopped', reason: 'not written' },
              },
            }),
          );
      },
    );
  }

  private onMessage(data: unknown, isBinary: boolean): void {
    const text = isBinary ? null : Buffer.isBuffer(data) ? data.toString('utf8') : null;
    const frame = text === null ? null : parseFrame(text);
    if (!frame) {
      if (++this.garbage >= GARBAGE_FRAME_LIMIT) this.ws?.close(1008, 'too many invalid frames');
      return;
    }
    this.garbage = 0;
    switch (frame.method) {
      case FRAME_METHODS.result: {
        const ok = isSuccessfulResult(frame.params);
        this.quietly(
          this.broker.complete(
            frame.params.command_id,
            this.scope,
            ok,
            ok ? frame.params.result : frame.params.error,
          ),
        );
        return;
      }
      case FRAME_METHODS.heartbeat:
        // An answer (`ok: true`) is not answered again, so two peers never ping-pong forever.
        if (frame.params.ok !== true) {
          this.ws?.send(
            encodeFrame({ method: FRAME_METHODS.heartbeat, params: { nonce: frame.params.nonce, ok: true } }),
          );
        }
        return;
      case FRAME_METHODS.detach:
        this.quietly(
          settle(this.broker.detach(this.scope, this), (detached) => {
            const ws = this.ws;
            if (detached && ws && ws.readyState === ws.OPEN)
              ws.send(encodeFrame({ method: FRAME_METHODS.detach, params: { ok: true } }));
          }),
        );
        return;
      case FRAME_METHODS.download:
        this.download(frame.params);
        return;
      default:
        // Commands and cancels only flow server → controller; from a controller they mean nothing.
        return;
    }
  }
}
