/**
 * The two ways a provider fails, as TabgateErrors so every transport renders them from the one table:
 * missing credentials (`provider_not_configured`) and the vendor refusing or being unreachable
 * (`provider_error`). Neither message ever carries a secret.
 */
import { TabgateError } from '../protocol/index.js';
import { redactSecrets } from './redact.js';

export class ProviderNotConfiguredError extends TabgateError {
  readonly provider: string;
  readonly missingEnv: string[];

  constructor(provider: string, displayName: string, missingEnv: string[]) {
    super(
      'provider_not_configured',
      `${displayName} is selected as the browser provider but ${missingEnv.join(' and ')} ${
        missingEnv.length === 1 ? 'is' : 'are'
      } not set. Run \`tabgate tools\` to configure it, or set browser.cloud_provider: local.`,
      { provider, missing_env: missingEnv },
    );
    this.name = 'ProviderNotConfiguredError';
    this.provider = provider;
    this.missingEnv = missingEnv;
  }
}

const BODY_LIMIT = 500;

export class ProviderApiError extends TabgateError {
  readonly provider: string;
  /** The vendor's HTTP status, or 0 when it could not be reached. */
  readonly providerStatus: number;
  /** The vendor's response body, redacted and truncated. */
  readonly body: string;

  /**
   * `secrets` are the values to scrub from `body` and `what` (the API key, tokens); credential-like
   * strings are scrubbed whatever is passed.
   */
  constructor(
    provider: string,
    what: string,
    providerStatus: number,
    body: string,
    secrets: Iterable<string | undefined> = [],
  ) {
    const list = [...secrets];
    const clean = redactSecrets(body, list).slice(0, BODY_LIMIT);
    const cleanWhat = redactSecrets(what, list);
    super(
      'provider_error',
      providerStatus === 0
        ? `${cleanWhat}: ${clean}`
        : `${cleanWhat}: HTTP ${providerStatus}${clean ? ` ${clean}` : ''}`,
      { provider, status: providerStatus },
    );
    this.name = 'ProviderApiError';
    this.provider = provider;
    this.providerStatus = providerStatus;
    this.body = clean;
  }
}
