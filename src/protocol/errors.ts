/**
 * The one error table. Every failure tabgate reports has a stable code here, mapped to its HTTP status
 * and to a hint that tells an agent what to do next. Transports render errors from this table in
 * exactly one place each; nothing branches on message text.
 */
export const ERROR_TABLE = {
  // Protocol v1 registration and socket (docs/protocol.md "POST /v1/browser-control/register" and
  // "GET /v1/browser-control/ws")
  browser_control_disabled: {
    status: 404,
    hint: 'Set browser.extension_control.enabled: true in config.yaml.',
  },
  browser_control_auth_required: { status: 403, hint: 'Configure an API key for the gateway.' },
  browser_control_invalid_registration: {
    status: 400,
    hint: 'Send session_id, controller_id and browser_profile_id as non-empty strings of at most 256 characters.',
  },
  browser_control_protocol_unsupported: { status: 400, hint: 'Send protocol_version: 1.' },
  browser_control_no_capabilities: { status: 400, hint: 'Request at least one capability of the allowlist.' },
  browser_control_session_forbidden: { status: 403, hint: 'Register for an existing session.' },
  invalid_ticket: {
    status: 401,
    hint: 'Register again for a fresh ticket; a ticket works once, for 30 seconds. Offer hermes-browser-control-v1 and exactly one ticket subprotocol; never put the ticket in the URL.',
  },

  // Authentication and request shape
  invalid_api_key: { status: 401, hint: 'Send Authorization: Bearer <key> (tabgate key prints it).' },
  operator_required: {
    status: 403,
    hint: "Only the gateway's owner may do this: the API key is the agent's and does not count. Use the tabgate CLI in the owner's terminal, or sign in with a link from `tabgate sign-in`.",
  },
  sign_in_invalid: {
    status: 401,
    hint: "Run `tabgate sign-in` in the owner's terminal for a new link; each link works once, for 10 minutes, on the computer the gateway runs on.",
  },
  csrf_token_invalid: {
    status: 403,
    hint: 'Reload the dashboard page: its actions carry a token of the signed-in browser session, and this one was missing or wrong.',
  },
  token_scope_forbidden: {
    status: 403,
    hint: 'A pairing token may only register controllers; use the API key for this.',
  },
  forbidden_host: { status: 403, hint: 'Reach the gateway by its loopback address.' },
  forbidden_origin: { status: 403, hint: 'Web pages may not call the gateway.' },
  not_found: { status: 404, hint: 'Check the path; GET /v1/tools lists the tools.' },
  method_not_allowed: { status: 405, hint: 'Check the HTTP method.' },
  invalid_json: { status: 400, hint: 'Send a JSON object body.' },
  invalid_request: { status: 400, hint: 'Fix the request as the message says.' },
  unsupported_media_type: { status: 415, hint: 'Send Content-Type: application/json.' },
  body_too_large: { status: 413, hint: 'JSON bodies are limited to 1 MiB.' },
  rate_limited: { status: 429, hint: 'Wait a moment and try again.' },
  internal_error: { status: 500, hint: 'This is a tabgate bug; the gateway log has details.' },

  // Pairing an extension (tabgate)
  pairing_not_found: {
    status: 404,
    hint: 'Start pairing again from the tabgate extension; a request lives 2 minutes.',
  },
  pairing_expired: { status: 410, hint: 'Start pairing again from the tabgate extension.' },
  pairing_denied: { status: 403, hint: 'The pairing was denied; start again if that was a mistake.' },
  pairing_code_invalid: {
    status: 404,
    hint: 'Type the code the extension shows (like ABCD-EFGH); each code works once, for 2 minutes.',
  },
  pairing_grant_not_found: { status: 404, hint: '`tabgate pair list` shows the paired extensions.' },
  pairing_forbidden: {
    status: 403,
    hint: 'Approve from the page the extension opened, on this computer, or with `tabgate pair approve CODE`.',
  },

  // Sessions and tools
  session_not_found: { status: 404, hint: 'Create a session with POST /v1/sessions.' },
  session_exists: { status: 409, hint: 'Another owner holds that session id; choose another id.' },
  session_not_bound: {
    status: 409,
    hint: "Only a session a user's browser served can be released; this one already uses the default backend.",
  },
  session_stopped_by_owner: {
    status: 409,
    hint: "The gateway's owner pressed Stop on this session: the call was cancelled and nothing runs until they resume it (dashboard, or `tabgate sessions resume ID`). Ask them; no other browser is used.",
  },
  unknown_tool: { status: 404, hint: 'GET /v1/tools lists the tools.' },
  invalid_arguments: { status: 400, hint: 'Fix the named argument; the tool list gives each schema.' },
  call_cancelled: {
    status: 409,
    hint: 'The caller cancelled this call (or went away) before it finished; call again if it is still wanted.',
  },

  // Routing to a user's browser (fail-closed)
  controller_unavailable: {
    status: 503,
    hint: "The session is bound to the user's browser, which is not reachable or cannot do this; ask the user to reconnect the tabgate extension. No other browser is used.",
  },
  session_stopped: {
    status: 409,
    hint: 'The user stopped sharing their browser with this session (or its pairing was revoked); ask them to share a tab with it again from the tabgate extension. No other browser is used.',
  },
  controller_timeout: {
    status: 504,
    hint: "The user's browser did not answer in time; check the page with browser_snapshot before retrying.",
  },
  controller_cancelled: {
    status: 409,
    hint: 'The user or the extension stopped this command; ask before retrying.',
  },
  controller_rejected: {
    status: 502,
    hint: "The user's browser refused the command; read the message before retrying.",
  },
  controller_result_invalid: {
    status: 502,
    hint: "The user's browser answered in a shape tabgate cannot read (the message names the field). The action may have run: take a browser_snapshot before retrying.",
  },
  backend_unavailable: { status: 503, hint: 'No browser backend can serve this session.' },

  // Cluster mode: gateways sharing engines
  cluster_unavailable: {
    status: 503,
    hint: 'The gateway cannot reach an engine its cluster shares (Redis or the PostgreSQL store); nothing was done and nothing was sent to any browser. Retry shortly: it reconnects by itself.',
  },

  // Browsers
  browser_not_found: {
    status: 503,
    hint: 'Install Chromium (apt-get install chromium) or set CHROME_PATH or browser.executable_path.',
  },
  browser_crashed: {
    status: 503,
    hint: 'The browser crashed; the next call starts a fresh one. Navigate again.',
  },
  browser_busy: {
    status: 503,
    hint: 'The browser is serving as many sessions or actions as it can; retry after the time the message (and the Retry-After header) gives.',
  },
  provider_not_configured: { status: 503, hint: 'Configure the cloud provider with `tabgate tools`.' },
  provider_error: {
    status: 502,
    hint: 'The cloud browser provider failed; try again or choose another provider with `tabgate tools`.',
  },
  provider_timeout: {
    status: 504,
    hint: 'The cloud browser provider did not create a browser in time (browser.provider_timeout_s); try again or choose another provider with `tabgate tools`.',
  },

  // Tool semantics (every backend)
  invalid_url: { status: 400, hint: 'Use an http(s) URL or about:blank.' },
  private_url_blocked: {
    status: 403,
    hint: 'Remote browsers may not reach private or internal addresses (browser.allowed_private_hosts allows one host, browser.allow_private_urls all).',
  },
  metadata_url_blocked: { status: 403, hint: 'Cloud metadata addresses are never opened.' },
  site_not_granted: {
    status: 403,
    hint: 'This session may not open that site; the message names the origin. Only the user can grant it (in the tabgate extension for their tab, or `tabgate grants add` for other browsers); ask them, or stay on the granted sites.',
  },
  site_blocked: {
    status: 403,
    hint: 'That site is denied by the safety policy or belongs to a high-risk category; do not try to reach it another way.',
  },
  domain_changed: {
    status: 409,
    hint: 'The page moved to another origin since the last snapshot; take a new browser_snapshot before acting.',
  },
  navigation_failed: { status: 502, hint: 'The page could not be loaded; check the URL.' },
  navigation_timeout: {
    status: 504,
    hint: 'The page took too long to load; take a browser_snapshot to see what did load.',
  },
  stale_ref: {
    status: 409,
    hint: 'The page changed since that ref was issued; take a new browser_snapshot and use a ref from it.',
  },
  element_covered: {
    status: 409,
    hint: 'Another element covers the target; dismiss it (for example close a dialog) and retry.',
  },
  element_not_interactable: {
    status: 409,
    hint: 'The element cannot take this action (hidden, disabled or not editable); pick another ref.',
  },
  tab_not_found: { status: 404, hint: 'browser_tabs lists the tab ids.' },
  dialog_open: {
    status: 409,
    hint: 'A dialog is open in this tab and blocks the page; answer it with browser_dialog first.',
  },
  no_dialog: { status: 409, hint: 'No dialog is open; take a browser_snapshot to see the page.' },
  no_history: {
    status: 409,
    hint: "The tab has no page that way in its history (the message says back or forward); nothing was loaded. Use browser_navigate with the page's URL.",
  },
  wait_timeout: {
    status: 408,
    hint: 'The condition did not hold in time; take a browser_snapshot to see the page, then wait again or act.',
  },
  upload_not_allowed: {
    status: 403,
    hint: 'Only files under a folder listed in browser.upload_roots may be uploaded; the owner adds folders there.',
  },
  download_not_found: { status: 404, hint: 'browser_downloads lists the files of this session.' },
  unsupported_on_backend: {
    status: 501,
    hint: "This session's browser cannot do this (the message says why); GET /v1/tools lists what it can.",
  },
  no_page: { status: 409, hint: 'No tab is open; navigate first.' },
  screenshot_too_large: { status: 413, hint: 'Take a viewport screenshot instead of the full page.' },
  unsupported_action: { status: 400, hint: 'This browser cannot run that action.' },
  // Vault secrets (docs/secrets.md)
  unknown_secret: {
    status: 404,
    hint: 'No vault secret has that name; the owner adds one with `tabgate secrets add NAME --origin URL`. Nothing was typed.',
  },
  secret_origin_mismatch: {
    status: 403,
    hint: "The secret fills only a field of its kind in a frame of its own origin; nothing was typed. Navigate to the secret's site and use the ref of its own field.",
  },
  secret_in_url: {
    status: 403,
    hint: 'A URL may not carry a vault secret, in any encoding; nothing was requested.',
  },
  secret_in_body: {
    status: 403,
    hint: "A request body may carry a vault secret only to the secret's own origin; the request was not sent.",
  },
  // Approvals of consequential actions (docs/safety.md "Approvals")
  approval_required: {
    status: 409,
    hint: 'Nothing was done: the action waits for the owner to approve it. Follow it with browser_approval_status {approval_id}; once approved, make the same call again with the same arguments.',
  },
  approval_denied: {
    status: 403,
    hint: 'The owner denied this action and nothing was done. Do not retry it; ask the person, or take another way.',
  },
  approval_timeout: {
    status: 409,
    hint: 'Nobody approved this action in time (safety.approval_timeout_s) and nothing was done. Ask the person to watch for it, then call again.',
  },
  approval_not_found: {
    status: 404,
    hint: 'No approval has that id in this session; `tabgate approvals list` shows the ones waiting.',
  },
  approval_expired: {
    status: 410,
    hint: 'That approval expired before it was used; the action must be asked for again.',
  },
  approval_already_decided: {
    status: 409,
    hint: 'That approval was decided (or used) already; each approval approves one action, once.',
  },
  approval_unavailable: {
    status: 403,
    hint: "This action needs the person's approval and this browser has no channel to ask for it yet; nothing was done. Ask the person to do it themselves.",
  },
  // Takeover: the person does one step themselves (docs/safety.md "Takeover")
  takeover_declined: {
    status: 409,
    hint: 'The person declined to do this step; the page is as they left it. Do not ask again for the same step; take another way or stop.',
  },
  takeover_timeout: {
    status: 409,
    hint: 'Nobody marked the step done in time (safety.takeover_timeout_s). Take a browser_snapshot to see where the page stands before asking again.',
  },
  takeover_pending: {
    status: 409,
    hint: "The person is doing a step on this session's page (browser_request_takeover); nothing else runs until they mark it done or decline. Wait for that call to answer.",
  },
  takeover_unavailable: {
    status: 409,
    hint: 'No person can do a step on this page now: open a page in the session first, or ask for a timeout within safety.takeover_timeout_s.',
  },
  command_timeout: {
    status: 504,
    hint: 'The browser did not finish this call in time; take a browser_snapshot to see the state before retrying.',
  },
} as const satisfies Record<string, { status: number; hint: string }>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_TABLE, value);
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_TABLE[code].status;
}

export function hintOf(code: ErrorCode): string {
  return ERROR_TABLE[code].hint;
}

/**
 * The error body of every HTTP error: `{"error": {"code", "message"}}`. A rejection by a browser
 * controller also carries the controller's own code (`stale_ref`, `tab_not_found`, …) when it sent one,
 * so an agent can act on it while `code` stays the protocol's `controller_rejected`.
 */
export interface ErrorBody {
  error: { code: string; message: string; controller_code?: string; approval_id?: string };
}

/** An approval's id as the gateway makes them (`apr_…`), the one fact an `approval_*` error carries. */
export const APPROVAL_ID_PATTERN = /^apr_[A-Za-z0-9_-]{1,64}$/;

/** A controller's own error code, kept only when it looks like one (no free text, no secrets). */
export const CONTROLLER_CODE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * A failure with a stable code. Thrown by any layer; rendered once per transport. The message is for a
 * person and must never contain a secret.
 */
export class TabgateError extends Error {
  readonly code: ErrorCode;
  /** Structured facts for logs and renderers; only `controller_code` reaches an error body. */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'TabgateError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return httpStatusOf(this.code);
  }

  /** The controller's own code of a `controller_rejected`, when it sent a well-formed one. */
  get controllerCode(): string | undefined {
    const value = this.details?.controller_code;
    return typeof value === 'string' && CONTROLLER_CODE_PATTERN.test(value) ? value : undefined;
  }

  /** Seconds to wait before retrying (`Retry-After`), for refusals that know it (`browser_busy`). */
  get retryAfterSeconds(): number | undefined {
    const value = this.details?.retry_after_seconds;
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : undefined;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { error: { code: this.code, message: this.message } };
    const controllerCode = this.controllerCode;
    if (controllerCode) body.error.controller_code = controllerCode;
    // The approval an agent follows up with browser_approval_status.
    const approvalId = this.details?.approval_id;
    if (typeof approvalId === 'string' && APPROVAL_ID_PATTERN.test(approvalId))
      body.error.approval_id = approvalId;
    return body;
  }
}

export function isTabgateError(value: unknown): value is TabgateError {
  return value instanceof TabgateError;
}
