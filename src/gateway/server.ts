/**
 * The composition root: config → key → store → broker → service → HTTP app and controller socket on one
 * `node:http` server. Used in-process by tests, by `tabgate serve`, and by `tabgate mcp`.
 */
import { SessionChanges } from './session-changes.js';
import { join } from 'node:path';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { approvalRoutes, Approvals } from './approvals/index.js';
import { extensionApprovalRoutes } from './http/routes/extension-approvals.js';
import { AuditLog, auditRoutes } from './audit/index.js';
import { ApiKeyVerifier, resolveApiKey, type ResolvedApiKey } from './auth/api-key.js';
import { apiKeyCredential, Authenticator } from './auth/authenticator.js';
import type { BrowserBackend } from './backends/index.js';
import { resolveBackend } from './backends/resolve.js';
import { createInMemoryBroker } from './broker/index.js';
import type { ControllerBroker } from './broker/controller-broker.js';
import type { SharedApprovalBook } from './cluster/index.js';
import { systemClock, timersOf, type Clock } from './clock.js';
import {
  configPath,
  LiveExtensionControlFlag,
  loadConfig,
  type ConfigFlags,
  type Environment,
  type GatewayConfig,
} from './config/index.js';
import { DefaultGatewayService } from './gateway-service.js';
import { allowedHostsFor, HostGuard } from './guards/host.js';
import { OriginGuard } from './guards/origin.js';
import { createOperator } from './operator/index.js';
import { createPairing } from './pairing/pairing.js';
import { createHttpApp } from './http/app.js';
import { RouteTable, type Route } from './http/route-table.js';
import { browserControlRoutes } from './http/routes/browser-control.js';
import { LatestScreenshots } from './activity/latest-screenshots.js';
import { SessionActivity } from './activity/session-activity.js';
import { DEFAULT_PROFILE_ID, OWNER_PRINCIPAL_ID } from './auth/authenticator.js';
import { dashboardApiRoutes } from './http/routes/dashboard-api.js';
import { DashboardStreams } from './http/routes/dashboard-events.js';
import { dashboardPageRoutes } from './http/routes/dashboard-page.js';
import { InFlightCalls } from './in-flight-calls.js';
import { OwnerCsrf } from './http/routes/owner-csrf.js';
import { sessionControlRoutes } from './http/routes/session-control.js';
import { sessionRoutes } from './http/routes/sessions.js';
import { toolRoutes } from './http/routes/tools.js';
import { downloadRoutes } from './http/routes/downloads.js';
import { UserTabDownloads } from './user-tab-downloads.js';
import { createLogger, type Logger } from '../log/logger.js';
import { SecretGuard, Vault } from './secrets/index.js';
import { McpHttpEndpoint } from './mcp/http-endpoint.js';
import { mcpRoutes } from './mcp/routes.js';
import type { GatewayService } from './service.js';
import { Sessions } from './sessions.js';
import { openStore } from './store/open-store.js';
import type { Store, StoreChange } from './store/store.js';
import { PairingGrants } from './pairing/grant-mirror.js';
import { GrantAudit } from './sites/grant-audit.js';
import { siteGrantRoutes } from './sites/grant-routes.js';
import { extensionSiteRoutes } from './http/routes/extension-sites.js';
import { SitePolicies } from './sites/site-policies.js';
import { warnIfExposed } from './security/exposure.js';
import { securePrivateHome } from './security/private-home.js';
import { ConnectionLimits, effectiveMaxConnections } from './security/connection-limits.js';
import {
  DEFAULT_RATE_LIMITS,
  RateLimits,
  registerLimits,
  type RateLimitSettings,
} from './security/rate-limits.js';
import { ControllerEndpoint } from './ws/controller-endpoint.js';
import { listenError } from './start-errors.js';

export interface GatewayOptions {
  /** A loaded configuration; else one is loaded from `home`/`env`/`flags`. */
  config?: GatewayConfig;
  home?: string;
  env?: Environment;
  flags?: ConfigFlags;
  /** Serves sessions no controller holds; default: resolveBackend (CDP URL, provider, or local Chromium). */
  backend?: BrowserBackend;
  clock?: Clock;
  log?: Logger;
  /** Extra routes (e.g. MCP at `/mcp`), behind the same Host/Origin/body/bearer guards. */
  routes?: Route[];
  /** Server keepalive period on controller sockets (default 20 s). */
  keepaliveMs?: number;
  /** Limits on registration and pairing (default DEFAULT_RATE_LIMITS); load tests raise them. */
  rateLimits?: Partial<RateLimitSettings>;
  /**
   * Writes to the owner's terminal, never to a log: `tabgate serve` passes it when stderr is a terminal,
   * and each pairing request then gets a one-time sign-in link there.
   */
  tellOwner?: (text: string) => void;
}

export interface RunningGateway {
  url: string;
  host: string;
  port: number;
  config: GatewayConfig;
  apiKey: ResolvedApiKey;
  /** The owner's credential (`$TABGATE_HOME/operator_key`): the CLI's, never the agent's. */
  operatorKey: string;
  /** A one-time link that signs a browser in as the owner, then opens `next` (a path). */
  signInLink(next?: string): string;
  service: GatewayService;
  broker: ControllerBroker;
  /** Every route served, mounted ones included: the security suite walks it. */
  routes(): readonly Route[];
  /** Mounts more routes after start. */
  mount(...routes: Route[]): void;
  /** Stops accepting, closes sockets, the broker, the backend and the store. Never throws. */
  close(): Promise<void>;
}

export async function startGateway(options: GatewayOptions = {}): Promise<RunningGateway> {
  const baseLog = options.log ?? createLogger();
  const config =
    options.config ??
    loadConfig({ home: options.home, env: options.env, flags: options.flags, log: baseLog });
  const clock = options.clock ?? systemClock;
  securePrivateHome(config.home, baseLog);
  // Not the scrubbing logger below, which reads the vault: the vault's watch logs without it.
  const vault = new Vault(config.home, baseLog);
  const secrets = new SecretGuard(vault);
  // Every part below logs through this one, so no line can carry a vault secret's value.
  const log = secrets.scrubLogs(baseLog);
  const apiKey = resolveApiKey(config);
  const verifier = new ApiKeyVerifier(apiKey.key);
  const store = await openStore({
    home: config.home,
    url: config.store.url,
    onError: (message) => log.warn(message),
    log,
  });
  log.info('store opened', { kind: store.kind, where: store.where });
  let held: Awaited<ReturnType<typeof loadFromStore>>;
  try {
    held = await loadFromStore(store, config, clock, log);
  } catch (error) {
    await store.close();
    throw error;
  }
  const { sitePolicies, audit, pairingGrants } = held;
  const sessions = new Sessions(store.sessions, clock, {
    // A cluster node on a SQLite file other nodes share must see their bindings and Stops too: a
    // stale cached session without its binding would let a call fall back to another browser.
    cache: !store.shared && !config.cluster.redis_url,
    onWriteError: (sessionId, error) =>
      log.error('session binding not stored', { session_id: sessionId, reason: String(error) }),
  });
  // Another gateway sharing the store changed something this one holds in memory.
  const storeChanged = (change: StoreChange) => {
    const failed = (error: unknown) =>
      log.warn('store change not applied', { table: change.table, reason: String(error) });
    sitePolicies.storeChanged(change).catch(failed);
    pairingGrants.storeChanged(change).catch(failed);
  };
  let unwatchStore = store.onChange(storeChanged);
  // After the store: the home folder exists now, so the flag can watch it.
  const extensionControl = new LiveExtensionControlFlag(
    configPath(config.home),
    config.browser.extension_control.enabled,
    log,
  );
  const sessionChanges = new SessionChanges();
  const brokerOptions = {
    clock,
    log,
    commandTimeoutMs: config.browser.extension_control.command_timeout * 1000,
    bindings: sessionChanges.observing(sessions.bindingObserver()),
  };
  let broker: ControllerBroker;
  // A cluster's approvals and takeovers are shared by every node; one gateway keeps its own in memory.
  let sharedBook: SharedApprovalBook | undefined;
  try {
    if (config.cluster.redis_url) {
      // Only a cluster node loads the Redis client: a single gateway starts without it.
      const { relayStoreChanges, SharedApprovalBook, startClusterBroker } =
        await import('./cluster/index.js');
      const clusterBroker = await startClusterBroker({
        ...brokerOptions,
        redisUrl: config.cluster.redis_url,
        fills: (name) => secrets.fillFor(name),
        config,
      });
      broker = clusterBroker;
      sharedBook = new SharedApprovalBook(
        clusterBroker.link,
        log,
        clock,
        config.safety.approval_timeout_s * 1000,
      );
      await sharedBook.start().catch(async (error: unknown) => {
        await clusterBroker.close();
        throw error;
      });
      // Nodes on one SQLite file learn of each other's grant writes through Redis.
      if (store.kind === 'sqlite') {
        const book = sharedBook;
        const unwatch = await relayStoreChanges(store, clusterBroker.link, storeChanged, log).catch(
          async (error: unknown) => {
            book.close();
            await clusterBroker.close();
            throw error;
          },
        );
        const unwatchOwn = unwatchStore;
        unwatchStore = () => {
          unwatch();
          unwatchOwn();
        };
      }
    } else broker = createInMemoryBroker(brokerOptions);
  } catch (error) {
    await audit.close();
    unwatchStore();
    await store.close();
    extensionControl.close();
    vault.close();
    throw error;
  }
  const originGuard = new OriginGuard(config.browser.extension_control.allowed_origins);
  const operator = createOperator({ home: config.home, clock });
  const pairing = createPairing({
    grants: pairingGrants,
    clock,
    log,
    originGuard,
    broker,
    operator: operator.auth,
  });
  const authenticator = new Authenticator([apiKeyCredential(verifier), pairing.credential]);
  const resolved = options.backend
    ? { backend: options.backend, dispose() {} }
    : await resolveBackend({
        config,
        env: options.env ?? {},
        log,
        sites: sitePolicies,
        clock: timersOf(clock),
      });
  const backend = resolved.backend;
  // Which browser a session's site mode and approvals are picked for: the user's tab once bound, else
  // the backend that serves it (after a live switch, an open session keeps its own; a new one gets the
  // current one). An embedder's own backend counts as local.
  const backendBrowser = (name: string): 'local' | 'remote' =>
    'selection' in resolved && name !== 'local' ? 'remote' : 'local';
  const grantAudit = new GrantAudit(audit);
  const siteBrowserOf = (session: { session_id: string; binding: unknown }) =>
    session.binding
      ? ('user_tab' as const)
      : backendBrowser(backend.describeSession?.(session.session_id)?.backend ?? backend.name);
  const inFlight = new InFlightCalls();
  const activity = new SessionActivity(clock);
  const approvals = new Approvals({
    safety: config.safety,
    clock,
    log,
    audit,
    // Each broker moves the deadline of a command that waits for the person's approval.
    waits: { awaitingApproval: (...wait) => broker.awaitingApproval?.(...wait) },
    ...(sharedBook ? { book: sharedBook } : {}),
  });
  const service = new DefaultGatewayService({
    sessions,
    broker,
    backend,
    extensionControl,
    log,
    audit,
    secrets,
    userTabSites: (sessionId) => sitePolicies.rules(sessionId, 'user_tab'),
    inFlight,
    activity,
    approvals,
    backendBrowser,
    sitePolicyOf: (sessionId, browser) => sitePolicies.view(sessionId, browser),
    sessionChanges,
    uploads: {
      roots: config.browser.upload_roots,
      maxBytes: Math.round(config.browser.upload_max_mb * 1024 * 1024),
    },
  });
  // The dashboard looks as the owner would: the owner's principal, from this computer.
  const ownerView = Object.freeze({
    principalId: OWNER_PRINCIPAL_ID,
    profileId: DEFAULT_PROFILE_ID,
    credential: 'operator' as const,
    transportFamily: 'local-api' as const,
  });
  let streams: DashboardStreams | null = null;
  const screenshots = new LatestScreenshots({
    activity,
    clock,
    capture: (sessionId) => service.captureScreen(ownerView, sessionId, true),
    onShot: (sessionId, seq) => streams?.screenshot(sessionId, seq),
  });

  const mcp = new McpHttpEndpoint({ service, log });
  const csrf = new OwnerCsrf();
  const dashboard = {
    sessions,
    inFlight,
    activity,
    screenshots,
    audit,
    pairing: pairing.service,
    grantSessions: pairing.sessionsOf,
    backendName: backend.name,
    describeSession: (sessionId: string) => backend.describeSession?.(sessionId),
    config,
    extensionControl,
    csrf,
    timers: timersOf(clock),
  };
  streams = new DashboardStreams(dashboard);

  // The Host guard needs the bound port, known only after listen.
  let hostGuard = new HostGuard(new Set());
  const routes = new RouteTable();
  const limits = config.gateway.limits;
  const rateLimits = new RateLimits(
    { ...DEFAULT_RATE_LIMITS, register: registerLimits(limits.register_per_second), ...options.rateLimits },
    clock,
    {
      knownPairing: (id) => pairing.service.knows(id),
      isOwner: (req) => operator.auth.isOperator(req),
      credentialOf: (req) => {
        const caller = authenticator.authenticate(req.headers.authorization, req.socket.remoteAddress);
        return caller && `${caller.credential}:${caller.credentialId ?? ''}`;
      },
    },
  );
  const connections = new ConnectionLimits({
    maxConnections: effectiveMaxConnections(limits.max_connections),
    maxUnauthenticated: limits.max_unauthenticated,
    maxUnauthenticatedPerPeer: limits.max_unauthenticated_per_peer,
  });
  routes.add(
    ...rateLimits.wrap([
      ...browserControlRoutes({
        extensionControl,
        apiKey: verifier,
        authenticator,
        broker,
        sessions,
        clock,
        onRegistered: pairing.onRegistered,
      }),
      ...pairing.routes,
      ...operator.routes,
      ...auditRoutes(audit),
      ...sessionRoutes(service, sitePolicies, siteBrowserOf),
      ...siteGrantRoutes(sessions, sitePolicies, siteBrowserOf, grantAudit),
      ...extensionSiteRoutes(sessions, sitePolicies, grantAudit),
      ...sessionControlRoutes(service, csrf),
      ...approvalRoutes({ approvals, sessions, csrf, operator: operator.auth, authenticator }),
      ...extensionApprovalRoutes({ approvals, sessions, service, originGuard }),
      ...dashboardPageRoutes(),
      ...dashboardApiRoutes(dashboard),
      ...streams.routes(),
      ...toolRoutes(service),
      ...downloadRoutes(service, join(config.home, 'downloads')),
      ...mcpRoutes(mcp),
      ...(options.routes ?? []),
    ]),
  );
  const app = createHttpApp({
    routes,
    hostGuard: () => hostGuard,
    originGuard,
    authenticator,
    operator: operator.auth,
    log,
    onProved: (socket) => connections.prove(socket),
  });
  const endpoint = new ControllerEndpoint({
    broker,
    featureEnabled: () => extensionControl.enabled(),
    hostGuard: () => hostGuard,
    originGuard,
    log,
    keepaliveMs: options.keepaliveMs,
    downloads: new UserTabDownloads(
      join(config.home, 'downloads'),
      Math.round(config.browser.download_max_mb * 1024 * 1024),
    ),
    onAccepted: (socket) => connections.prove(socket),
  });
  const headersTimeoutMs = limits.headers_timeout * 1000;
  const server = http.createServer(
    {
      // A tool call may legitimately run for minutes, so a request as a whole has no deadline; its
      // headers do (Node derives the headers timeout from requestTimeout unless it is set), and so
      // does an idle keep-alive socket.
      requestTimeout: 0,
      headersTimeout: headersTimeoutMs,
      keepAliveTimeout: limits.keep_alive_timeout * 1000,
      // How often Node looks for expired headers; its default (30 s) would stretch the timeout.
      connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
    },
    app,
  );
  server.maxConnections = connections.maxConnections;
  server.on('connection', (socket: Socket) => connections.admit(socket));
  server.on('upgrade', (req, socket, head) => {
    if (!endpoint.handleUpgrade(req, socket, head))
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.gateway.port, config.gateway.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    extensionControl.close();
    vault.close();
    await audit.close();
    await mcp.close();
    endpoint.close();
    unwatchStore();
    await broker.close();
    await store.close();
    await backend.close().catch(() => undefined);
    throw listenError(error, config.gateway.host, config.gateway.port);
  }
  const address = server.address() as AddressInfo;
  hostGuard = new HostGuard(allowedHostsFor(address.address, address.port, config.gateway.allowed_hosts));
  warnIfExposed(address.address, address.port, log);
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;
  const { tellOwner } = options;
  if (tellOwner) {
    pairing.service.onRequested((request) =>
      tellOwner(
        `Pairing requested by ${JSON.stringify(request.name)} (${request.origin}), code ${request.code}.\n` +
          `  Approve in this terminal: tabgate pair approve ${request.code}\n` +
          `  or in your browser (works once, for 10 minutes): ${operator.link(url, `/pair/${encodeURIComponent(request.id)}`)}`,
      ),
    );
  }

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      streams?.close();
      screenshots.close();
      approvals.close();
      await mcp.close();
      endpoint.close();
      await broker.close();
      server.closeAllConnections();
      await stopped;
      await backend
        .close()
        .catch((error: unknown) => log.warn('backend close failed', { reason: String(error) }));
      resolved.dispose();
      extensionControl.close();
      // Last before the store closes: calls that ended during shutdown are queued by now.
      await audit.close();
      unwatchStore();
      await store.close();
    })());

  return {
    url,
    host: address.address,
    port: address.port,
    config,
    apiKey,
    operatorKey: operator.key,
    signInLink: (next) => operator.link(url, next ?? null),
    service,
    broker,
    routes: () => routes.list(),
    mount: (...extra) => routes.add(...rateLimits.wrap(extra)),
    close,
  };
}

/** What the gateway holds in memory from the store, read once at start. */
async function loadFromStore(store: Store, config: GatewayConfig, clock: Clock, log: Logger) {
  const sitePolicies = new SitePolicies(config.safety, store.siteGrants, clock);
  await sitePolicies.loadAll();
  const pairingGrants = await PairingGrants.load(store.pairingGrants, (message) => log.warn(message));
  const audit = await AuditLog.open({
    store: store.audit,
    home: config.home,
    clock,
    log,
    retentionDays: config.audit.retention_days,
    allBackends: config.audit.all_backends,
  });
  return { sitePolicies, pairingGrants, audit };
}
