import { InvalidArgumentError } from 'commander';

/** A TCP port, 0–65535 (0 lets the system choose). */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new InvalidArgumentError('expected a port number 0-65535');
  return port;
}
