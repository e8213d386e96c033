/**
 * Why a gateway cannot start, each with a message that names the URL (password hidden) and what failed:
 * `tabgate serve` prints it and exits 1. They live apart from the code that throws them so the CLI can
 * tell them apart without loading the PostgreSQL and Redis clients, which only cluster mode needs.
 */

/** The PostgreSQL store cannot be reached, or refuses its schema. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** Redis is unreachable at start. */
export class ClusterUnreachableError extends Error {}

/** A node tried to join a cluster whose running nodes have another configuration. */
export class ClusterConfigMismatchError extends Error {}
