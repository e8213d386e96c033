/**
 * One accepted controller socket: frames in (results, heartbeats, detach), nothing else. The socket is
 * the owner token of its scope in the broker, so a socket that has been replaced by a reconnect can no
 * longer take the controller offline or detach it.
 */
import type { WebSocket } from 'ws';
import { encodeFrame, FRAME_METHODS, isSuccessfulResult, parseFrame } from '../../protocol/index.js';
import { settle, type ControllerBroker, type MaybePromise } from '../broker/controller-broker.js';
import type { ControllerScope } from '../broker/scope.js';
import type { Logger } from '../../log/logger.js';

/** Consecutive frames that are not protocol frames before the socket is closed with 1008. */
export const GARBAGE_FRAME_LIMIT = 64;

export class ControllerConnection {
  private garbage = 0;

  constructor(
    readonly socket: WebSocket,
    readonly scope: ControllerScope,
    private readonly broker: ControllerBroker,
    private readonly log: Logger,
  ) {}

  /** Attaches to the broker and starts reading frames; false (socket closed) when the attach failed. */
  start(): MaybePromise<boolean> {
    this.socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    this.socket.on('close', () => this.quietly(this.broker.disconnect(this.scope, this)));
    this.socket.on('error', (error) => this.log.debug('controller socket error', { reason: error.message }));
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

  private attachFailed(error: unknown): false {
    this.log.warn('browser controller reconnect could not flush deferred cancels', {
      reason: (error as Error).message,
    });
    this.quietly(this.broker.disconnect(this.scope, this));
    this.socket.close(1011, 'reconnect failed');
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
    if (this.socket.readyState !== this.socket.OPEN) throw new Error('browser-control websocket is closed');
    this.socket.send(text);
  }

  keepalive(nonce: string): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(encodeFrame({ method: FRAME_METHODS.heartbeat, params: { nonce, ok: true } }));
  }

  private onMessage(data: unknown, isBinary: boolean): void {
    const text = isBinary ? null : Buffer.isBuffer(data) ? data.toString('utf8') : null;
    const frame = text === null ? null : parseFrame(text);
    if (!frame) {
      if (++this.garbage >= GARBAGE_FRAME_LIMIT) this.socket.close(1008, 'too many invalid frames');
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
          this.socket.send(
            encodeFrame({ method: FRAME_METHODS.heartbeat, params: { nonce: frame.params.nonce, ok: true } }),
          );
        }
        return;
      case FRAME_METHODS.detach:
        this.quietly(
          settle(this.broker.detach(this.scope, this), (detached) => {
            if (detached && this.socket.readyState === this.socket.OPEN)
              this.socket.send(encodeFrame({ method: FRAME_METHODS.detach, params: { ok: true } }));
          }),
        );
        return;
      default:
        // Commands and cancels only flow server → controller; from a controller they mean nothing.
        return;
    }
  }
}
