/**
 * The command bus: delivers frames to whoever holds a controller's socket and resolves the waiting
 * caller when the answer comes back, exactly once. In memory the holder is a local socket; a shared
 * implementation would forward to the gateway that holds it and resolve the caller across gateways.
 */
import { encodeFrame, type Frame } from '../../protocol/index.js';

export type CommandOutcome =
  | { kind: 'ok'; result: unknown }
  | { kind: 'rejected'; error: unknown }
  | { kind: 'cancelled' }
  | { kind: 'timeout' };

export interface PendingCommand {
  readonly commandId: string;
  readonly identity: string;
  readonly action: string;
  readonly toolCallId: string | null;
  /** Epoch ms; kept across a socket loss (a reconnect does not extend it). */
  readonly deadlineAt: number;
  /** Called once, by whoever takes the command off the bus. */
  settle(outcome: CommandOutcome): void;
}

/** Writes one text frame to a socket; throws when the socket is closed. */
export type FrameSender = (text: string) => void;

export interface CommandBus {
  bindSender(identity: string, sender: FrameSender | null): void;
  /** Sends a frame to the controller's socket; false when nobody holds it. Throws on a send failure. */
  deliver(identity: string, frame: Frame): boolean;
  open(command: PendingCommand): void;
  /** Removes and returns the command when it is pending for this identity; the only way to settle one. */
  take(commandId: string, identity?: string): PendingCommand | undefined;
  /** This identity's pending commands, in dispatch order. */
  pendingOf(identity: string): PendingCommand[];
  all(): PendingCommand[];
  clear(): void;
}

export class InMemoryCommandBus implements CommandBus {
  private readonly senders = new Map<string, FrameSender>();
  private readonly pending = new Map<string, PendingCommand>();

  bindSender(identity: string, sender: FrameSender | null): void {
    if (sender) this.senders.set(identity, sender);
    else this.senders.delete(identity);
  }

  deliver(identity: string, frame: Frame): boolean {
    const sender = this.senders.get(identity);
    if (!sender) return false;
    sender(encodeFrame(frame));
    return true;
  }

  open(command: PendingCommand): void {
    this.pending.set(command.commandId, command);
  }

  take(commandId: string, identity?: string): PendingCommand | undefined {
    const command = this.pending.get(commandId);
    if (!command || (identity !== undefined && command.identity !== identity)) return undefined;
    this.pending.delete(commandId);
    return command;
  }

  pendingOf(identity: string): PendingCommand[] {
    return [...this.pending.values()].filter((command) => command.identity === identity);
  }

  all(): PendingCommand[] {
    return [...this.pending.values()];
  }

  clear(): void {
    this.pending.clear();
    this.senders.clear();
  }
}
