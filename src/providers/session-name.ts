import { createHash, randomBytes } from 'node:crypto';

/**
 * `tabgate_<task>_<8 hex>`: unique per session and short enough for any log line or socket path. Long task
 * ids keep their first 14 characters plus a 7-hex digest, so two long ids stay distinct.
 */
export function providerSessionName(taskId: string, prefix = 'tabgate'): string {
  const clean = taskId.replace(/[^A-Za-z0-9_-]/g, '_');
  const task =
    clean.length > 22
      ? `${clean.slice(0, 14)}-${createHash('sha1').update(taskId).digest('hex').slice(0, 7)}`
      : clean;
  return `${prefix}_${task}_${randomBytes(4).toString('hex')}`;
}
