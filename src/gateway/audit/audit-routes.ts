/**
 * `GET /v1/audit?session=&limit=&after=` (API key only): the audit log, oldest first within a page.
 * Without `after` the newest `limit` rows come back; `next_after` is the cursor for the rows that come
 * later, so a reader can follow the log by asking again with it.
 */
import { TabgateError } from '../../protocol/index.js';
import { queryOf, type Route } from '../http/route-table.js';
import type { AuditEntry, AuditQuery } from './audit-entry.js';

export const AUDIT_PATH = '/v1/audit';
export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 1000;

function integerParam(params: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new TabgateError('invalid_request', `${name} must be an integer from ${min} to ${max}.`);
  }
  return value;
}

const KNOWN_PARAMS: ReadonlySet<string> = new Set(['session', 'after', 'limit']);

export function parseAuditQuery(url: string | undefined): AuditQuery {
  const params = queryOf(url);
  // A misspelt filter would otherwise answer with every session's rows.
  for (const name of params.keys()) {
    if (!KNOWN_PARAMS.has(name)) {
      throw new TabgateError(
        'invalid_request',
        `Unknown query parameter ${JSON.stringify(name.slice(0, 40))}; the audit log takes session, after and limit.`,
      );
    }
  }
  const session = params.get('session') ?? undefined;
  if (session !== undefined && (session.length === 0 || session.length > 256)) {
    throw new TabgateError('invalid_request', 'session must be a session id of 1-256 characters.');
  }
  return {
    session,
    after: integerParam(params, 'after', 0, Number.MAX_SAFE_INTEGER),
    limit: integerParam(params, 'limit', 1, MAX_AUDIT_LIMIT) ?? DEFAULT_AUDIT_LIMIT,
  };
}

export function auditRoutes(log: { list(query: AuditQuery): Promise<AuditEntry[]> }): Route[] {
  return [
    {
      method: 'GET',
      path: AUDIT_PATH,
      handle: async (ctx) => {
        const query = parseAuditQuery(ctx.req.url);
        const entries = await log.list(query);
        const last = entries.at(-1)?.id ?? query.after ?? null;
        return { status: 200, body: { entries, next_after: last } };
      },
    },
  ];
}
