/**
 * Every registered provider runs behind this guard, so the promises of the contract hold whatever a
 * plugin does: a failed `createSession` reaches the agent as `provider_not_configured` or a 502
 * `provider_error` naming the provider and its plugin (secrets redacted), never as an internal error;
 * the metadata is checked field by field; a `createSession` that hangs is cut off with
 * `provider_timeout`, and a session it creates after all is released at once with `emergencyCleanup`;
 * release never throws. The optional parts of the contract get their defaults here.
 */
import { isTabgateError, TabgateError } from '../protocol/index.js';
import type { Logger } from '../log/logger.js';
import type { BrowserProvider, ProviderSessionMetadata, ProviderSetupSchema } from './api.js';
import type { PluginProvider } from './plugin-provider.js';
import { redactSecrets } from './redact.js';
import { checkSessionMetadata } from './session-metadata.js';

export interface GuardOptions {
  /** The plugin's name (plugin.yaml). */
  plugin: string;
  /** plugin.yaml `description`: the default picker tag. */
  description: string;
  /** plugin.yaml `requires_env`: the default picker prompts. */
  requiresEnv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  /** `browser.provider_timeout_s` in milliseconds. */
  createTimeoutMs: number;
  /** plugin.yaml `post_setup`: the setup step when the provider's own row names none. */
  postSetup?: string;
  /** Why the provider's config section is invalid; sessions are refused with it. */
  configProblem?: string;
}

const MESSAGE_LIMIT = 500;
/** A release that hangs must not hang a session's close, nor shutdown (a bit above the REST base's own). */
const CLOSE_TIMEOUT_MS = 15_000;
const EMERGENCY_TIMEOUT_MS = 8_000;
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH/i;

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === 'string' ? error : String(error);

export class GuardedProvider implements BrowserProvider {
  readonly name: string;
  readonly displayName: string;

  constructor(
    private readonly inner: PluginProvider,
    private readonly o: GuardOptions,
  ) {
    this.name = inner.name;
    this.displayName = this.labelOf(inner);
  }

  /** The plugin's own object, for code that needs its extra methods (tests, diagnostics). */
  get unwrapped(): PluginProvider {
    return this.inner;
  }

  isAvailable(): boolean {
    if (this.o.configProblem) return false;
    const inner = this.inner;
    if (typeof inner.isAvailable === 'function') return inner.isAvailable() === true;
    return inner.isConfigured?.() === true;
  }

  async createSession(taskId: string): Promise<ProviderSessionMetadata> {
    if (this.o.configProblem)
      throw new TabgateError(
        'provider_not_configured',
        `${this.displayName}: its config section is invalid: ${this.o.configProblem}`,
        { provider: this.name, plugin: this.o.plugin },
      );
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const creating = Promise.resolve().then(() => this.inner.createSession(taskId));
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(
          new TabgateError(
            'provider_timeout',
            `${this.displayName} did not create a browser within ${this.o.createTimeoutMs / 1000} s (browser.provider_timeout_s).`,
            { provider: this.name, plugin: this.o.plugin },
          ),
        );
      }, this.o.createTimeoutMs);
    });
    let raw: unknown;
    try {
      raw = await Promise.race([creating, deadline]);
    } catch (error) {
      if (timedOut) this.releaseLate(creating);
      throw this.failure(error);
    } finally {
      clearTimeout(timer);
    }
    const checked = checkSessionMetadata(raw);
    if (checked.ok) return checked.metadata;
    // It may have created a remote browser all the same: release it, since no one else knows its id.
    if (checked.providerSessionId) await this.emergencyCleanup(checked.providerSessionId);
    throw new TabgateError(
      'provider_error',
      `${this.displayName} (plugin ${this.o.plugin}) returned invalid session metadata: ${checked.problems.join('; ')}`,
      { provider: this.name, plugin: this.o.plugin, fields: checked.problems },
    );
  }

  closeSession(sessionId: string): Promise<boolean> {
    return this.releasing('closeSession', CLOSE_TIMEOUT_MS, () => this.inner.closeSession(sessionId));
  }

  emergencyCleanup(sessionId: string): Promise<boolean> {
    return this.releasing('emergencyCleanup', EMERGENCY_TIMEOUT_MS, () =>
      this.inner.emergencyCleanup(sessionId),
    );
  }

  getSetupSchema(): ProviderSetupSchema | null {
    if (typeof this.inner.getSetupSchema !== 'function') {
      // The seed's default row: the display name, and the env vars plugin.yaml says it needs.
      return {
        name: this.displayName,
        badge: '',
        tag: this.o.description,
        env_vars: this.o.requiresEnv.map((key) => ({ key, prompt: key })),
        ...(this.o.postSetup ? { post_setup: this.o.postSetup } : {}),
      };
    }
    const schema = this.inner.getSetupSchema();
    if (!schema) return null;
    return schema.post_setup || !this.o.postSetup ? schema : { ...schema, post_setup: this.o.postSetup };
  }

  private labelOf(inner: PluginProvider): string {
    if (typeof inner.displayName === 'string' && inner.displayName.trim()) return inner.displayName;
    const aliases = [() => inner.providerName?.(), () => inner.provider_name?.()];
    for (const alias of aliases) {
      try {
        const value: unknown = alias();
        if (typeof value === 'string' && value.trim()) return value;
      } catch {
        // An alias that throws names nothing; the provider's name will do.
      }
    }
    return inner.name;
  }

  /** Values to scrub from a plugin's message: every env value whose name looks like a credential. */
  private secrets(): string[] {
    return Object.entries(this.o.env)
      .filter(([key, value]) => SECRET_NAME.test(key) && typeof value === 'string' && value.length >= 4)
      .map(([, value]) => value as string);
  }

  private failure(error: unknown): TabgateError {
    if (isTabgateError(error)) return error;
    const details = { provider: this.name, plugin: this.o.plugin };
    const message = redactSecrets(messageOf(error), this.secrets()).slice(0, MESSAGE_LIMIT);
    // A plugin that does not use ctx.errors can still say "missing credentials" by code or by name.
    const marked = error as { code?: unknown; name?: unknown } | null;
    if (marked?.code === 'provider_not_configured' || marked?.name === 'ProviderNotConfiguredError')
      return new TabgateError('provider_not_configured', `${this.displayName}: ${message}`, details);
    this.o.log.warn('browser provider failed to create a session', { ...details, error: message });
    return new TabgateError(
      'provider_error',
      `${this.displayName} (plugin ${this.o.plugin}) failed to create a browser: ${message || 'no message'}`,
      details,
    );
  }

  /** A session created after its deadline belongs to no one: release it as soon as it exists. */
  private releaseLate(creating: Promise<unknown>): void {
    void creating.then(
      (raw) => {
        const checked = checkSessionMetadata(raw);
        const id = checked.ok ? checked.metadata.bb_session_id : checked.providerSessionId;
        if (!id) return;
        this.o.log.warn('provider created a session after its timeout; releasing it', {
          provider: this.name,
          provider_session: id,
        });
        return this.emergencyCleanup(id);
      },
      () => undefined,
    );
  }

  private async releasing(what: string, timeoutMs: number, run: () => unknown): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const result = await Promise.race([Promise.resolve().then(run), deadline]);
      return result === undefined ? true : result === true;
    } catch (error) {
      // The contract says never throw; a third-party plugin may anyway, and a close must still finish.
      this.o.log.warn(`browser provider ${what} threw; treating the session as not released`, {
        provider: this.name,
        plugin: this.o.plugin,
        error: redactSecrets(messageOf(error), this.secrets()).slice(0, MESSAGE_LIMIT),
      });
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}
