/**
 * Every configuration key tabgate knows, with its default, as one zod schema. The file, the environment
 * and the flags are merged into one plain object and validated here once; the result is frozen.
 */
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { DIALOG_POLICIES } from '../../engine/dialogs.js';
import {
  DEFAULT_COMMAND_TIMEOUT_SECONDS,
  DEFAULT_HOST,
  DEFAULT_PORT,
  isCloudMetadataHost,
} from '../../protocol/index.js';
import {
  DEFAULT_MAX_CONCURRENT_ACTIONS,
  DEFAULT_MAX_SESSIONS,
  MIN_INACTIVITY_TIMEOUT_SECONDS,
} from './browser-settings.js';
import { safetySchema } from './safety-schema.js';

const EXTENSION_ORIGIN_PATTERN = /^chrome-extension:\/\/[a-p]{32}$/;

const seconds = z.number().positive().max(86_400);
const count = z.number().int().min(1);

/**
 * Socket limits of the HTTP server (docs/gateway.md, "Limits"). Sized for a two-core machine: far more
 * than one owner's agents and browsers open, far fewer than the descriptors a flood would need.
 */
export const DEFAULT_CONNECTION_LIMITS = {
  /** Seconds a client may take to send a request's headers; long tool calls are not bounded by it. */
  headers_timeout: 10,
  /** Seconds an idle keep-alive socket stays open between requests. */
  keep_alive_timeout: 5,
  /** Sockets of any kind (lowered to the process's open-file limit minus a reserve). */
  max_connections: 4096,
  /** Sockets that have not proved a credential yet; the oldest is closed to make room. */
  max_unauthenticated: 1024,
  /**
   * The same, per peer address. All of loopback is one peer, and a local agent's burst of calls opens
   * a socket each before any proves its key, so by default it is the total cap: a lower one closed the
   * first sockets of a 300-session burst (test/reliability/flood.test.ts).
   */
  max_unauthenticated_per_peer: 1024,
  /**
   * Controller registrations (tickets) each credential may make per second on this gateway (a cluster
   * counts per node), with a burst of 60 or a second's worth, whichever is more.
   */
  register_per_second: 10,
} as const;

/** A host as a URL names it (no scheme, port or path); a metadata endpoint is never one to allow. */
const privateHost = z
  .string()
  .regex(
    /^(\[[0-9a-f:.]+\]|[0-9a-f:]+:[0-9a-f:.]*|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)$/i,
    'expected a host name or an IP address',
  )
  .refine(
    (host) => !isCloudMetadataHost(host.toLowerCase().replace(/^\[|\]$/g, '')),
    'a cloud metadata endpoint can never be allowed',
  );

export const configSchema = z.object({
  gateway: z
    .object({
      host: z.string().min(1).default(DEFAULT_HOST),
      port: z.number().int().min(0).max(65_535).default(DEFAULT_PORT),
      /** Extra Host header values accepted when bound to a non-loopback address (`name:port`). */
      allowed_hosts: z.array(z.string().min(1)).default([]),
      api_server: z
        .object({
          /** Absent → generated at first start; the empty string → no API key (only tokens authenticate). */
          key: z.string().optional(),
        })
        .default({}),
      limits: z
        .object({
          headers_timeout: seconds.default(DEFAULT_CONNECTION_LIMITS.headers_timeout),
          keep_alive_timeout: seconds.default(DEFAULT_CONNECTION_LIMITS.keep_alive_timeout),
          max_connections: count.default(DEFAULT_CONNECTION_LIMITS.max_connections),
          max_unauthenticated: count.default(DEFAULT_CONNECTION_LIMITS.max_unauthenticated),
          max_unauthenticated_per_peer: count.default(DEFAULT_CONNECTION_LIMITS.max_unauthenticated_per_peer),
          register_per_second: z
            .number()
            .positive()
            .max(1_000_000)
            .default(DEFAULT_CONNECTION_LIMITS.register_per_second),
        })
        .default(DEFAULT_CONNECTION_LIMITS),
    })
    .default({
      host: DEFAULT_HOST,
      port: DEFAULT_PORT,
      allowed_hosts: [],
      api_server: {},
      limits: DEFAULT_CONNECTION_LIMITS,
    }),
  browser: z
    .object({
      extension_control: z
        .object({
          /**
           * Only the boolean `true` enables; anything else (even the string "true") is off, and so is a
           * mapping without the key.
           */
          enabled: z
            .unknown()
            .transform((value) => value === true)
            .default(false),
          allowed_origins: z
            .array(z.string().regex(EXTENSION_ORIGIN_PATTERN, 'expected chrome-extension://<32 letters a-p>'))
            .default([]),
          command_timeout: seconds.default(DEFAULT_COMMAND_TIMEOUT_SECONDS),
        })
        .default({ enabled: false, allowed_origins: [], command_timeout: DEFAULT_COMMAND_TIMEOUT_SECONDS }),
      executable_path: z.string().min(1).optional(),
      headed: z.boolean().default(false),
      chromium_args: z.array(z.string()).default([]),
      /** At least 30 s: a shorter one resets sessions while an agent is still thinking. */
      inactivity_timeout: seconds.min(MIN_INACTIVITY_TIMEOUT_SECONDS).default(120),
      snapshot_max_chars: z.number().int().min(1000).default(15_000),
      command_timeout: seconds.default(30),
      max_sessions: count.default(DEFAULT_MAX_SESSIONS),
      max_concurrent_actions: count.default(DEFAULT_MAX_CONCURRENT_ACTIONS),
      allow_private_urls: z.boolean().default(false),
      /** Private hosts a remote browser may open although allow_private_urls is off (a staging host). */
      allowed_private_hosts: z.array(privateHost).default([]),
      cloud_provider: z.string().min(1).optional(),
      cdp_url: z.string().min(1).optional(),
      /** The bundled remote-cdp provider's endpoint (a self-hosted browser's CDP URL). */
      remote_cdp: z.object({ url: z.string().min(1).optional() }).default({}),
      /** How long a provider's createSession may take before it is cut off with `provider_timeout`. */
      provider_timeout_s: seconds.default(60),
      /** `ask` keeps a page's dialog open for browser_dialog; `accept`/`dismiss` answer it at once. */
      dialog_policy: z.enum(DIALOG_POLICIES).default('ask'),
      /** An unanswered dialog is dismissed after this long, so a tab never stays blocked for ever. */
      dialog_timeout_s: seconds.default(60),
      /** A download bigger than this is stopped and its part file removed. */
      download_max_mb: z.number().positive().max(100_000).default(100),
      /** Folders browser_upload may read from; none by default, so uploads are off. */
      upload_roots: z.array(z.string().refine(isAbsolute, 'expected an absolute folder path')).default([]),
      upload_max_mb: z.number().positive().max(10_000).default(50),
    })
    .default({
      extension_control: {
        enabled: false,
        allowed_origins: [],
        command_timeout: DEFAULT_COMMAND_TIMEOUT_SECONDS,
      },
      headed: false,
      chromium_args: [],
      inactivity_timeout: 120,
      snapshot_max_chars: 15_000,
      command_timeout: 30,
      max_sessions: DEFAULT_MAX_SESSIONS,
      max_concurrent_actions: DEFAULT_MAX_CONCURRENT_ACTIONS,
      allow_private_urls: false,
      allowed_private_hosts: [],
      remote_cdp: {},
      provider_timeout_s: 60,
      dialog_policy: 'ask',
      dialog_timeout_s: 60,
      download_max_mb: 100,
      upload_roots: [],
      upload_max_mb: 50,
    }),
  plugins: z
    .object({
      /** Plugins in `$TABGATE_HOME/plugins/browser/` to load (their code runs only when named here). */
      enabled: z.array(z.string()).default([]),
      /** Plugins not to load whatever their source (`tabgate plugins disable NAME`). */
      disabled: z.array(z.string()).default([]),
    })
    .default({ enabled: [], disabled: [] }),
  audit: z
    .object({
      all_backends: z.boolean().default(false),
      retention_days: z.number().int().min(1).default(30),
    })
    .default({ all_backends: false, retention_days: 30 }),
  /**
   * Where sessions, grants and the audit log live: unset, the embedded SQLite file in the home folder;
   * a `postgres://` URL, a PostgreSQL database shared by every gateway given it (docs/cluster.md).
   */
  store: z
    .object({
      // The message never quotes the value: it may hold a password.
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\/\S+$/i, 'expected a postgres:// URL (unset: the embedded SQLite file)')
        .optional(),
    })
    .default({}),
  safety: safetySchema,
  cluster: z
    .object({
      /**
       * `redis://[user:password@]host:port[/db]`: run as one node of a cluster whose routing state
       * (tickets, lanes, commands, node leases) lives in this Redis. Unset: one process, all in memory.
       */
      redis_url: z
        .string()
        .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
        .optional(),
    })
    .default({}),
});

export type ConfigValues = z.output<typeof configSchema>;

/** The validated configuration plus where it came from. Deeply frozen. */
export interface GatewayConfig extends ConfigValues {
  /** `TABGATE_HOME`: config.yaml, state.db and api_key live here. */
  readonly home: string;
  /** `CHROME_PATH`, used when `browser.executable_path` is not set. */
  readonly chromePathFallback: string | undefined;
  /** `browser.<name>` mappings the schema does not know: provider plugins' own sections (plugin-sections.ts). */
  readonly pluginSections: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}
