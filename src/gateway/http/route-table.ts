/**
 * A tiny route table: method + path pattern (`/v1/sessions/:id`) → route. Matching a path with another
 * method answers 405, matching nothing 404. Extra routes (MCP) are mounted the same way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallSignal, Caller } from '../service.js';
import type { JsonBody } from './body.js';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  /** Null only on routes declared `auth: 'custom'`, which authenticate in their handler. */
  caller: Caller | null;
  body: JsonBody;
  /** Aborted when the client goes away before the response is written. */
  signal: CallSignal;
}

/** The query of a request's URL (all after its first `?`), empty when it has none. */
export function queryOf(url: string | undefined): URLSearchParams {
  const at = url?.indexOf('?') ?? -1;
  return new URLSearchParams(at === -1 || !url ? '' : url.slice(at + 1));
}

/** A handler returns a JSON reply, or writes to `ctx.res` itself and returns nothing. */
export interface Reply {
  status: number;
  body?: unknown;
}

/** The rate-limit buckets a route may draw from (`security/rate-limits.ts`). */
export type RateLimitKind = 'register' | 'pairing';

export interface Route {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** Literal segments and `:name` placeholders matching one segment each. */
  path: string;
  /**
   * `api_key` (default): bearer required and it must be the API key; `controller`: any credential a
   * controller may hold (API key or a pairing token); `operator`: only the gateway's owner (the operator
   * key, or a signed-in browser); `custom`: the handler authenticates itself (registration, whose checks
   * run in the protocol's order).
   */
  auth?: 'api_key' | 'controller' | 'operator' | 'custom';
  /**
   * Also accept the gateway's own origin (`http://<Host>`): for pages the gateway itself serves (the
   * pairing approval page) posting back to it. Every other web origin is still refused.
   */
  sameOriginPage?: boolean;
  /**
   * The bucket every request to this route draws from before it does any work: declared here, on the
   * route, so renaming its path cannot silently drop its limit.
   */
  limit?: RateLimitKind;
  /**
   * Polled by clients (the tool list each `tabgate mcp --gateway` reads every 2 s): a successful request
   * is logged at debug, so the log keeps what agents and people did rather than the poll. Declared here,
   * like the limit, so renaming the path keeps it.
   */
  quietLog?: boolean;
  handle(ctx: RouteContext): Promise<Reply | void> | Reply | void;
}

interface CompiledRoute {
  route: Route;
  segments: string[];
  /** Positions of `:name` segments, and their names. */
  params: [number, string][];
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong_method'; allowed: string[] }
  | { kind: 'none' };

/** The non-empty segments of a path (`/a//b/` has two), without an intermediate array. */
function splitPath(path: string): string[] {
  const segments: string[] = [];
  let from = 0;
  while (from <= path.length) {
    let to = path.indexOf('/', from);
    if (to === -1) to = path.length;
    if (to > from) segments.push(path.slice(from, to));
    from = to + 1;
  }
  return segments;
}

/**
 * Routes are kept by their number of segments, so a request is compared only with the routes of its
 * own length (one or two for a tool call). There is no per-path memory: with one path per session, a
 * memory of paths stops helping once sessions outnumber it, and every call then paid for the miss.
 */
export class RouteTable {
  private readonly compiled: CompiledRoute[] = [];
  private readonly byLength = new Map<number, CompiledRoute[]>();

  add(...routes: Route[]): void {
    for (const route of routes) {
      const segments = splitPath(route.path);
      const params = segments.flatMap((s, i): [number, string][] =>
        s.startsWith(':') ? [[i, s.slice(1)]] : [],
      );
      const compiled = { route, segments, params };
      this.compiled.push(compiled);
      const sameLength = this.byLength.get(segments.length) ?? [];
      sameLength.push(compiled);
      this.byLength.set(segments.length, sameLength);
    }
  }

  /** Every route, in the order added. */
  list(): Route[] {
    return this.compiled.map(({ route }) => route);
  }

  /** The route for a request: the first added that fits its method and path, else 405 or 404. */
  match(method: string, pathname: string): RouteMatch {
    const segments = splitPath(pathname);
    const allowed: string[] = [];
    for (const compiled of this.byLength.get(segments.length) ?? []) {
      if (!sameLiterals(compiled.segments, segments)) continue;
      if (compiled.route.method !== method) {
        if (decodeParams(compiled, segments)) allowed.push(compiled.route.method);
        continue;
      }
      const params = decodeParams(compiled, segments);
      if (params) return { kind: 'found', route: compiled.route, params };
    }
    return allowed.length > 0 ? { kind: 'wrong_method', allowed } : { kind: 'none' };
  }
}

/** The same literal segments (both of one length); placeholders match any segment. */
function sameLiterals(pattern: string[], segments: string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] as string;
    if (expected.charCodeAt(0) !== 0x3a && expected !== segments[i]) return false;
  }
  return true;
}

/** The placeholders' values, or null when one is not valid percent-encoding. */
function decodeParams(compiled: CompiledRoute, segments: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (const [index, name] of compiled.params) {
    const segment = segments[index] as string;
    if (!segment.includes('%')) {
      params[name] = segment;
      continue;
    }
    try {
      params[name] = decodeURIComponent(segment);
    } catch {
      return null;
    }
  }
  return params;
}
