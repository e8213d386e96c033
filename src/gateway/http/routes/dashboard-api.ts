/**
 * The JSON routes the owner's dashboard reads and acts through, all under the operator credential (a
 * signed-in browser: cookie + proof, from the gateway's own page; or the operator key), every state
 * change also under the page token (owner-csrf.ts). The agent's API key reaches none of them.
 */
import type { ServerResponse } from 'node:http';
import { TabgateError, TOOLS, type ToolName } from '../../../protocol/index.js';
import type { ActionEntry, SessionActivity } from '../../activity/session-activity.js';
import type { LatestScreenshots } from '../../activity/latest-screenshots.js';
import { summarize, type SessionSummary } from '../../activity/session-summary.js';
import type { AuditEntry, AuditLog } from '../../audit/index.js';
import type { TimerClock } from '../../clock.js';
import type { FeatureFlag, GatewayConfig } from '../../config/index.js';
import type { InFlightCalls } from '../../in-flight-calls.js';
import type { SessionBrowserInfo } from '../../backends/backend.js';
import type { GrantSession } from '../../pairing/grant-controllers.js';
import type { PairingService } from '../../pairing/pairing-service.js';
import type { Caller, SessionRecord } from '../../service.js';
import type { Sessions } from '../../sessions.js';
import { queryOf, type Route, type RouteContext } from '../route-table.js';
import type { OwnerCsrf } from './owner-csrf.js';

export const DASHBOARD_API = '/v1/dashboard';
const EXPORT_LIMIT = 100_000;

export interface DashboardDeps {
  sessions: Sessions;
  inFlight: InFlightCalls;
  activity: SessionActivity;
  screenshots: LatestScreenshots;
  audit: AuditLog;
  pairing: PairingService;
  /** The sessions a paired extension holds, and whether each is connected now. */
  grantSessions?: (grantId: string) => GrantSession[];
  backendName: string;
  /** The session's own browser as its backend knows it (provider, live view). */
  describeSession?: (sessionId: string) => SessionBrowserInfo | undefined;
  config: GatewayConfig;
  extensionControl: FeatureFlag;
  csrf: OwnerCsrf;
  /** What the live stream's batches are timed by; the system's timers without it. */
  timers?: TimerClock;
}

const ownerOf = (ctx: RouteContext): Caller => {
  if (!ctx.caller) throw new Error('route requires a caller');
  return ctx.caller;
};

export function summaryOf(d: DashboardDeps, record: SessionRecord): SessionSummary {
  const browser = record.binding ? undefined : d.describeSession?.(record.session_id);
  return summarize(record, {
    backendName: d.backendName,
    ...(browser ? { browser } : {}),
    running: d.inFlight.running(record.session_id),
    last: d.activity.last(record.session_id),
    page: d.activity.lastPage(record.session_id),
  });
}

/** The filters of the Activity view: session, tool, outcome, principal, and a cursor. */
export interface ActivityFilter {
  session?: string;
  tool?: string;
  outcome?: string;
  principal?: string;
}

export function activityFilterOf(url: string | undefined): ActivityFilter {
  const params = queryOf(url);
  const filter: ActivityFilter = {};
  for (const name of ['session', 'tool', 'outcome', 'principal'] as const) {
    const value = params.get(name);
    if (value === null || value === '') continue;
    if (value.length > 256) throw new TabgateError('invalid_request', `${name}: at most 256 characters.`);
    filter[name] = value;
  }
  return filter;
}

export function matchesFilter(entry: AuditEntry, filter: ActivityFilter): boolean {
  return (
    (filter.session === undefined || entry.session_id === filter.session) &&
    (filter.tool === undefined || entry.action === filter.tool) &&
    (filter.outcome === undefined ||
      (filter.outcome === 'error' ? entry.outcome !== 'ok' : entry.outcome === filter.outcome)) &&
    (filter.principal === undefined || entry.principal_id === filter.principal)
  );
}

/** Every value under a name that sounds secret is shown only as set or not. */
function hideSecrets(value: unknown, key = ''): unknown {
  if (/key|secret|token|password|credential/i.test(key))
    return value === undefined || value === null || value === '' ? value : '(set, hidden)';
  if (Array.isArray(value)) return value.map((item) => hideSecrets(item));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hideSecrets(v, k)]));
  return value;
}

function sendPng(res: ServerResponse, png: Buffer): void {
  res.writeHead(200, {
    'content-type': 'image/png',
    'content-length': png.length,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'same-origin',
  });
  res.end(png);
}

export function dashboardApiRoutes(d: DashboardDeps): Route[] {
  const session = (ctx: RouteContext) => d.sessions.get(ownerOf(ctx), ctx.params.id ?? '');
  const pendingWithCodes = () =>
    d.pairing.listPending().map((p) => ({ ...p, code: d.pairing.pageFor(p.pairing_id).code }));
  return [
    {
      method: 'GET',
      path: `${DASHBOARD_API}/me`,
      auth: 'operator',
      handle: (ctx) => {
        const owner = ownerOf(ctx);
        const tools: ToolName[] = TOOLS.map((tool) => tool.name);
        return {
          status: 200,
          body: { signed_in: true, csrf_token: d.csrf.tokenFor(owner.credentialId ?? ''), tools },
        };
      },
    },
    {
      method: 'GET',
      path: `${DASHBOARD_API}/sessions`,
      auth: 'operator',
      handle: async (ctx) => {
        const records = (await d.sessions.list(ownerOf(ctx))).reverse();
        return { status: 200, body: { sessions: records.map((record) => summaryOf(d, record)) } };
      },
    },
    {
      method: 'GET',
      path: `${DASHBOARD_API}/sessions/:id`,
      auth: 'operator',
      handle: async (ctx) => {
        const record = await session(ctx);
        d.screenshots.watch(record.session_id);
        const timeline: readonly ActionEntry[] = d.activity.timeline(record.session_id);
        return { status: 200, body: { session: summaryOf(d, record), timeline } };
      },
    },
    {
      method: 'GET',
      path: `${DASHBOARD_API}/sessions/:id/screenshot`,
      auth: 'operator',
      handle: async (ctx) => {
        const record = await session(ctx);
        d.screenshots.watch(record.session_id);
        const shot = d.screenshots.latest(record.session_id);
        if (!shot) throw new TabgateError('not_found', 'No screenshot of this session yet.');
        sendPng(ctx.res, shot.png);
      },
    },
    {
      method: 'GET',
      path: `${DASHBOARD_API}/activity`,
      auth: 'operator',
      handle: async (ctx) => {
        const filter = activityFilterOf(ctx.req.url);
        const entries = (await d.audit.list({ session: filter.session, limit: 1000 })).filter((e) =>
          matchesFilter(e, filter),
        );
        return { status: 200, body: { entries: entries.slice(-200).reverse() } };
      },
    },
    {
      method: 'GET',
      path: `${DASHBOARD_API}/activity/export`,
      auth: 'operator',
      handle: async (ctx) => {
        const filter = activityFilterOf(ctx.req.url);
        const rows = await d.audit.list({ session: filter.session, after: 0, limit: EXPORT_LIMIT });
        const text = rows
          .filter((e) => matchesFilter(e, filter))
          .map((e) => JSON.stringify(e) + '\n')
          .join('');
        ctx.res.writeHead(200, {
          'content-type': 'application/x-ndjson; charset=utf-8',
          'content-disposition': 'attachment; filename="tabgate-activity.jsonl"',
          'content-length': Buffer.byteLength(text),
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        });
        ctx.res.end(text);
      },
    },
    {
      method: 'GET',
      path: `${DASHBOARD_API}/browsers`,
      auth: 'operator',
      handle: () => ({
        status: 200,
        body: {
          grants: d.pairing.listGrants().map((grant) => {
            const sessions = d.grantSessions?.(grant.grant_id) ?? [];
            return { ...grant, connected: sessions.some((s) => s.connected), sessions };
          }),
          pending: pendingWithCodes(),
        },
      }),
    },
    ...(['approve', 'deny'] as const).map((action) =>
      d.csrf.ownerAction({
        method: 'POST',
        path: `${DASHBOARD_API}/pairings/:id/${action}`,
        handle: (ctx) => {
          const request = d.pairing.pageFor(ctx.params.id ?? '');
          const decision = action === 'approve' ? 'approved' : 'denied';
          const credential = ownerOf(ctx).credentialId ?? 'operator';
          return { status: 200, body: d.pairing.decideByCode(request.code, decision, credential) };
        },
      }),
    ),
    d.csrf.ownerAction({
      method: 'DELETE',
      path: `${DASHBOARD_API}/browsers/:id`,
      handle: async (ctx) => ({
        status: 200,
        body: { revoked: true, grant: await d.pairing.revoke(ctx.params.id ?? '') },
      }),
    }),
    {
      method: 'GET',
      path: `${DASHBOARD_API}/settings`,
      auth: 'operator',
      handle: () => {
        const { home: _home, chromePathFallback: _chrome, ...values } = d.config;
        return {
          status: 200,
          body: {
            config: hideSecrets(values),
            backend: d.backendName,
            cloud_provider: d.config.browser.cloud_provider ?? null,
            extension_control: d.extensionControl.enabled(),
          },
        };
      },
    },
  ];
}
