/**
 * The backend behind sessions no controller holds, chosen live: each session's first call follows the
 * configuration as it is then (config.yaml and `$TABGATE_HOME/.env`, as `tabgate tools` and `tabgate
 * plugins` write them), without a restart, and the session keeps that browser until it closes. The
 * files are read on a session's first call only, and the choice is made again when they changed; a file that cannot be
 * read keeps the browser chosen last, with a warning. A backend no session uses any more, and that is
 * no longer the current choice, is closed.
 */
import { readFileSync } from 'node:fs';
import type { BrowserSelection, PluginDiagnostic } from '../../providers/index.js';
import type { Logger } from '../../log/logger.js';
import type { TimerClock } from '../clock.js';
import { envFilePath } from '../../providers/index.js';
import { configPath, loadConfig, type GatewayConfig } from '../config/index.js';
import type { ToolName, ToolResults } from '../../protocol/index.js';
import type { BrowserBackend, SessionBrowserInfo, ToolCall } from './backend.js';
import { chooseBackend, type BackendChoice } from './backend-choice.js';
import type { SiteRulesSource } from './site-rules-source.js';

export interface ResolvedBackend {
  backend: BrowserBackend;
  /** The selection made at start. */
  selection: BrowserSelection;
  /** Plugins that could not be loaded, for `tabgate doctor`. */
  diagnostics: PluginDiagnostic[];
  /** Removes process-wide hooks (provider emergency cleanup) after a clean shutdown. */
  dispose(): void;
}

interface ResolveOptions {
  config: GatewayConfig;
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  /** Site grants for the CDP backends (docs/safety.md). */
  sites?: SiteRulesSource;
  /** The gateway's clock, for every backend chosen now or later. */
  clock?: TimerClock;
}

/** The file's content: both files are small, and a content compare cannot miss two writes in one mtime tick. */
function signature(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '\0missing';
  }
}

export class LiveBackend implements BrowserBackend {
  private current: BackendChoice;
  private readonly bySession = new Map<string, BackendChoice>();
  /** Chosen for a session whose first call is on its way (see `prepare`), not yet opened. */
  private readonly prepared = new Map<string, BackendChoice>();
  private readonly live = new Set<BackendChoice>();
  private sources: string;
  private refreshing: Promise<BackendChoice> | null = null;
  private closed = false;

  constructor(
    initial: BackendChoice,
    private readonly o: ResolveOptions,
  ) {
    this.current = initial;
    this.live.add(initial);
    this.sources = this.sourcesSignature();
  }

  /** The backend new sessions get now: shown in logs and audit rows. */
  get name(): string {
    return this.current.backend.name;
  }

  describeSession(sessionId: string): SessionBrowserInfo | undefined {
    const backend = this.bySession.get(sessionId)?.backend;
    if (!backend) return undefined;
    return backend.describeSession?.(sessionId) ?? { backend: backend.name };
  }

  /**
   * The name of the backend a session's calls run on, choosing it now for a session that has made none
   * (the configuration as it is now): its first call is then logged, gated and judged as the browser
   * that will really serve it, not the one chosen for the sessions before it.
   */
  async prepare(sessionId: string): Promise<string> {
    const known = this.bySession.get(sessionId) ?? this.prepared.get(sessionId);
    if (known) return known.backend.name;
    const chosen = await this.choiceForNewSession();
    const choice = this.bySession.get(sessionId) ?? this.prepared.get(sessionId) ?? chosen;
    if (!this.bySession.has(sessionId)) this.prepared.set(sessionId, choice);
    return choice.backend.name;
  }

  async call<N extends ToolName>(call: ToolCall<N>): Promise<ToolResults[N]> {
    let choice = this.bySession.get(call.sessionId);
    if (!choice) {
      const chosen = this.prepared.get(call.sessionId) ?? (await this.choiceForNewSession());
      choice = this.bySession.get(call.sessionId) ?? chosen;
      this.bySession.set(call.sessionId, choice);
      this.prepared.delete(call.sessionId);
    }
    return choice.backend.call(call);
  }

  async closeSession(sessionId: string): Promise<void> {
    const wasPrepared = this.prepared.delete(sessionId);
    const choice = this.bySession.get(sessionId);
    if (!choice) {
      if (wasPrepared) await this.retireUnused();
      return;
    }
    this.bySession.delete(sessionId);
    await choice.backend.closeSession(sessionId);
    await this.retireUnused();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.refreshing?.catch(() => undefined);
    const all = [...this.live];
    this.live.clear();
    this.bySession.clear();
    this.prepared.clear();
    await Promise.all(all.map((choice) => this.shut(choice)));
  }

  dispose(): void {
    for (const choice of this.live) choice.dispose();
  }

  private sourcesSignature(): string {
    return JSON.stringify([
      signature(configPath(this.o.config.home)),
      signature(envFilePath(this.o.config.home)),
    ]);
  }

  private choiceForNewSession(): Promise<BackendChoice> {
    if (this.closed) return Promise.resolve(this.current);
    const now = this.sourcesSignature();
    if (now === this.sources) return Promise.resolve(this.current);
    this.refreshing ??= this.refresh(now).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refresh(now: string): Promise<BackendChoice> {
    const { log } = this.o;
    let config: GatewayConfig;
    try {
      config = loadConfig({ home: this.o.config.home, env: this.o.env, log });
    } catch (error) {
      log.warn('config.yaml changed but cannot be read; new sessions keep the browser chosen last', {
        reason: error instanceof Error ? error.message : String(error),
      });
      return this.current;
    }
    this.sources = now;
    const next = await chooseBackend({
      config,
      env: this.o.env,
      log,
      sites: this.o.sites,
      clock: this.o.clock,
    });
    if (next.key === this.current.key) {
      await this.shut(next);
      return this.current;
    }
    log.info('browser backend re-selected for new sessions; open sessions keep theirs', {
      from: this.current.backend.name,
      to: next.backend.name,
    });
    this.current = next;
    this.live.add(next);
    await this.retireUnused();
    return next;
  }

  private async retireUnused(): Promise<void> {
    const used = new Set([...this.bySession.values(), ...this.prepared.values()]);
    const idle = [...this.live].filter((choice) => choice !== this.current && !used.has(choice));
    for (const choice of idle) this.live.delete(choice);
    await Promise.all(idle.map((choice) => this.shut(choice)));
  }

  private async shut(choice: BackendChoice): Promise<void> {
    await choice.backend
      .close()
      .catch((error: unknown) => this.o.log.warn('backend close failed', { reason: String(error) }));
    choice.dispose();
  }
}

export async function resolveBackend(options: ResolveOptions): Promise<ResolvedBackend> {
  const initial = await chooseBackend(options);
  const backend = new LiveBackend(initial, options);
  return {
    backend,
    selection: initial.selection,
    diagnostics: initial.diagnostics,
    dispose: () => backend.dispose(),
  };
}
