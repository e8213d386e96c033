/**
 * A typed, synchronous event source: listeners hear each change as it is made, in the order made.
 * Listeners are expected to note the change and return (a view marks a line to read again); one that
 * throws does not keep the change from the others, nor fail the write that made it.
 */
export class ChangeSource<T> {
  private readonly listeners = new Set<(change: T) => void>();

  /** Calls `listener` on each change; returns what stops it. */
  on(listener: (change: T) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  emit(change: T): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A listener's fault is its own: the write that made the change has been made.
      }
    }
  }
}
