/**
 * A vault secret never passes through Redis: a command's inbox entry names it (name, origin, field) and
 * the node holding the socket adds the value from its own vault, on the way out.
 */
import type { SecretFill } from '../../protocol/index.js';
import type { Logger } from '../../log/logger.js';

/** What a command's Redis entry says of its vault secret: which one, never its value. */
export interface SecretRef {
  name: string;
  origin: string;
  field: string;
}

export function secretRefOf(fill: SecretFill | undefined): SecretRef | null {
  return fill ? { name: fill.name, origin: fill.origin, field: fill.field } : null;
}

/** The command frame as the socket gets it: the secret's value is added only here, on the way out. */
export function withSecret(frame: string, fill: SecretFill): string {
  const parsed = JSON.parse(frame) as { params: Record<string, unknown> };
  parsed.params.secret = fill;
  return JSON.stringify(parsed);
}

/**
 * The entry's frame, with the value of the secret it names read from this node's vault; null when
 * this vault has no such secret for that origin and field (the nodes' vaults differ): not sent.
 */
export function frameWithSecret(
  entry: Record<string, string>,
  fills: ((name: string) => SecretFill) | undefined,
  log: Logger,
): string | null {
  const frame = entry.f ?? '';
  if (!entry.s) return frame;
  try {
    const ref = JSON.parse(entry.s) as SecretRef;
    const fill = fills?.(ref.name);
    if (!fill || fill.origin !== ref.origin || fill.field !== ref.field) throw new Error('another secret');
    return withSecret(frame, fill);
  } catch {
    log.warn('a command named a vault secret this node does not hold the same; it was not sent');
    return null;
  }
}
