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

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

/** How many found routes `match` remembers; past it, it starts again (an agent uses a few paths). */
const REMEMBERED_MATCHES = 512;
/** Longer paths are matched every time, so a remembered key stays small. */
const REMEMBERED_PATH_CHARS = 256;

export class RouteTable {
  private readonly compiled: CompiledRoute[] = [];
  private readonly remembered = new Map<string, RouteMatch>();

  add(...routes: Route[]): void {
    this.remembered.clear();
    for (const route of routes) {
      const segments = splitPath(route.path);
      const params = segments.flatMap((s, i): [number, string][] =>
        s.startsWith(':') ? [[i, s.slice(1)]] : [],
      );
      this.compiled.push({ route, segments, params });
    }
  }

  /** Every route, in the order added. */
  list(): Route[] {
    return this.compiled.map(({ route }) => route);
  }

  /**
   * The route for a request. An agent calls the same session's path again and again: a path found
   * once is answered from memory (its params frozen, as every request shares them); this took the
   * route table from ~3 µs per call to almost nothing in bench:controller's profile.
   */
  match(method: string, pathname: string): RouteMatch {
    if (pathname.length > REMEMBERED_PATH_CHARS) return this.find(method, pathname);
    const key = `${method} ${pathname}`;
    const known = this.remembered.get(key);
    if (known) return known;
    const found = this.find(method, pathname);
    if (found.kind !== 'found') return found;
    if (this.remembered.size >= REMEMBERED_MATCHES) this.remembered.clear();
    Object.freeze(found.params);
    this.remembered.set(key, found);
    return found;
  }

  private find(method: string, pathname: string): RouteMatch {
    const segments = splitPath(pathname);
    const allowed: string[] = [];
    for (const compiled of this.compiled) {
      if (!sameShape(compiled.segments, segments)) continue;
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

/** Same length and the same literal segments; placeholders match any segment. */
function sameShape(pattern: string[], segments: string[]): boolean {
  if (pattern.length !== segments.length) return false;
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
