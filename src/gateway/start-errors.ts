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

/** The gateway cannot listen where its configuration says (the port taken, a host not of this machine). */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

const LISTEN_REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE:
    'the port is in use (another tabgate serve?); stop it, or choose another with --port or gateway.port',
  EADDRNOTAVAIL: "that address is not one of this machine's; use 127.0.0.1, or an address of this machine",
  EACCES: 'this user may not listen on that port; choose one above 1023',
  ENOTFOUND: 'that host name does not resolve; use 127.0.0.1, or an address of this machine',
  EAI_AGAIN: 'that host name could not be resolved now; use an IP address',
};

/** Why `listen` failed, as a person reads it: where, and what to do. */
export function listenError(error: unknown, host: string, port: number): ListenError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const reason = LISTEN_REASONS[code] ?? (error as Error).message;
  return new ListenError(`cannot listen on ${where}: ${reason}`);
}

/** Whether an error is one of these: the CLI prints its message alone and exits 1. */
export function isStartError(error: unknown): error is Error {
  return (
    error instanceof StoreUnavailableError ||
    error instanceof ClusterUnreachableError ||
    error instanceof ClusterConfigMismatchError ||
    error instanceof ListenError
  );
}
