/**
 * What the conformance suite needs from a backend under test. The local backend's test builds one on
 * the backend directly; the providers and the extension build theirs on their own path (for example the
 * gateway's HTTP API), so every backend runs the very same cases.
 */
export interface ConformanceSession {
  /** Runs one tool in this session; rejects with an error carrying the stable `code` on failure. */
  call(tool: string, args?: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * What a backend cannot do by its nature (not by a bug). A case that needs it is skipped, or asserts the
 * refusal instead, with the reason named; cases are never deleted for one backend.
 */
export interface BackendLimits {
  /** Sessions share one cookie jar (a user's own browser profile is one): why, when they do. */
  sharedCookies?: string;
  /** Tools this backend refuses by design, the code every refusal carries, and why. */
  refusedTools?: { tools: readonly string[]; code: string; reason: string };
  /** Refusals this backend reports under another code, keyed by the code the cases expect; with why. */
  renamedCodes?: Readonly<Record<string, { code: string; reason: string }>>;
  /**
   * Cases this backend cannot pass by its nature, by their exact title, each with why (a backend whose
   * snapshot format has no states or values cannot show a typed value). A title that names no case of
   * the part of the suite being run fails it, so a renamed case never silently runs unchecked or stays
   * skipped: a harness declares, for each part (suite.ts), the skips of that part only.
   */
  skippedCases?: Readonly<Record<string, string>>;
}

export interface ConformanceHarness {
  /** A fresh session with its own isolated browser (context). */
  newSession(): Promise<ConformanceSession>;
  /** URLs of the test site (test/testserver) as the browser under test reaches them. */
  url(path: string): string;
  /** The same site on a second, cross-site origin. */
  otherUrl(path: string): string;
  /**
   * A folder listed in the backend's `browser.upload_roots` where cases may write files to upload, and
   * the backend's `browser.download_max_mb` in bytes; absent where the backend refuses files by design.
   */
  files?: { uploadRoot: string; downloadMaxBytes: number };
  /** The snapshot budget the backend was configured with. */
  snapshotMaxChars: number;
  /** Kills the browser the way a crash would; absent when the harness cannot (the case is skipped). */
  crashBrowser?: () => Promise<void>;
  limits?: BackendLimits;
  close(): Promise<void>;
}

/** The harness's addresses on the test site (test/testserver) it serves, and its snapshot budget. */
export function onTestSite(
  site: { url(path: string): string; otherUrl(path: string): string },
  snapshotMaxChars: number,
): Pick<ConformanceHarness, 'url' | 'otherUrl' | 'snapshotMaxChars'> {
  return { url: (path) => site.url(path), otherUrl: (path) => site.otherUrl(path), snapshotMaxChars };
}

/** How a case reaches the suite's harness, which starts only once the suite runs. */
export type HarnessRef = () => ConformanceHarness;

/**
 * Thrown when a case calls a tool its harness refuses by design (after the refusal was checked): the
 * case is then skipped with the reason, and no helper may take it for the failure a case expects.
 */
export class NeedsRefusedTool extends Error {}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The refusal a harness declares for `tool`, if it refuses that tool. */
export function refusalOf(
  harness: ConformanceHarness,
  tool: string,
): { code: string; reason: string } | null {
  const refused = harness.limits?.refusedTools;
  return refused?.tools.includes(tool) ? { code: refused.code, reason: refused.reason } : null;
}
