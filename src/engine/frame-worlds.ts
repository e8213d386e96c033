/**
 * Our isolated world in each frame of one CDP session (a page, or an out-of-process iframe). Context ids
 * are per document: when a frame navigates its world is destroyed, which is exactly what makes every ref
 * minted in it stale. We create a world on demand and forget it when Chromium says it is gone.
 */
import { TabgateError } from '../protocol/index.js';
import type { CallFunctionResult, ExecutionContextDescription } from './cdp-types.js';
import { INSTALL_EXPRESSION, RUN_FUNCTION, WORLD_NAME } from './page/install.js';
import { isCdpFailure, type CdpSession } from './transport.js';

/** What a page function may use of the page agent (page/agent-state.ts). */
export interface PageAgent {
  lookup(id: number): Element | null;
  idOf(el: Element): number;
  describe(el: Element): string;
}

export class FrameWorlds {
  private readonly byFrame = new Map<string, number>();
  private readonly alive = new Set<number>();
  private readonly installed = new Set<number>();
  private readonly origins = new Map<number, string>();
  private readonly unsubscribe: (() => void)[];

  constructor(readonly session: CdpSession) {
    this.unsubscribe = [
      session.on<{ context: ExecutionContextDescription }>(
        'Runtime.executionContextCreated',
        ({ context }) => {
          const frameId = context.auxData?.frameId;
          if (context.name !== WORLD_NAME || !frameId) return;
          this.byFrame.set(frameId, context.id);
          this.alive.add(context.id);
          if (context.origin !== undefined) this.origins.set(context.id, context.origin);
        },
      ),
      session.on<{ executionContextId: number }>(
        'Runtime.executionContextDestroyed',
        ({ executionContextId }) => this.forget(executionContextId),
      ),
      session.on('Runtime.executionContextsCleared', () => {
        this.byFrame.clear();
        this.alive.clear();
        this.installed.clear();
        this.origins.clear();
      }),
    ];
  }

  dispose(): void {
    for (const off of this.unsubscribe) off();
  }

  isAlive(contextId: number): boolean {
    return this.alive.has(contextId);
  }

  /** The origin of a frame's current document as Chromium reported it; never asks the page. */
  originOfFrame(frameId: string): string | undefined {
    const contextId = this.byFrame.get(frameId);
    return contextId === undefined ? undefined : this.origins.get(contextId);
  }

  /** The origin of the document a world belongs to, as Chromium reported it when the world was made. */
  originOf(contextId: number): string | undefined {
    return this.origins.get(contextId);
  }

  /** The world's context id in this frame's current document, created (and our agent installed) if needed. */
  async contextFor(frameId: string): Promise<number> {
    let contextId = this.byFrame.get(frameId);
    if (contextId === undefined || !this.alive.has(contextId)) {
      const created = await this.session.send<{ executionContextId: number }>('Page.createIsolatedWorld', {
        frameId,
        worldName: WORLD_NAME,
        grantUniveralAccess: false,
      });
      contextId = created.executionContextId;
      this.byFrame.set(frameId, contextId);
      this.alive.add(contextId);
    }
    if (!this.installed.has(contextId)) {
      await this.evaluateInstall(contextId);
      this.installed.add(contextId);
    }
    return contextId;
  }

  /** Runs one page command in a world; a vanished context means the document is gone (stale). */
  run<T>(contextId: number, command: string, arg?: unknown): Promise<T> {
    return this.invoke<T>(contextId, RUN_FUNCTION, [command, arg ?? null], false, `page command ${command}`);
  }

  /**
   * Runs a self-contained function in a world, given the page agent (`__tabgate`) and `arg`: how the
   * engine's own modules do DOM work of their own (forms, waits, overlays) without growing the agent.
   * The function is serialised with `toString`, so it must not close over anything.
   */
  call<T, A = unknown>(contextId: number, fn: (agent: PageAgent, arg: A) => T, arg: A): Promise<Awaited<T>> {
    const declaration = `function (arg) { const __name = (t) => t; return (${fn.toString()})(globalThis.__tabgate, arg); }`;
    return this.invoke<Awaited<T>>(contextId, declaration, [arg ?? null], true, 'page function');
  }

  /**
   * `Runtime.callFunctionOn` in one of our worlds, installing the agent first if the world is new. A
   * context that vanished (or that the transport classifies as stale) means the document is gone.
   */
  private async invoke<T>(
    contextId: number,
    functionDeclaration: string,
    args: unknown[],
    awaitPromise: boolean,
    what: string,
  ): Promise<T> {
    if (!this.alive.has(contextId)) throw staleError();
    if (!this.installed.has(contextId)) {
      await this.evaluateInstall(contextId);
      this.installed.add(contextId);
    }
    let response: CallFunctionResult;
    try {
      response = await this.session.send<CallFunctionResult>('Runtime.callFunctionOn', {
        functionDeclaration,
        executionContextId: contextId,
        arguments: args.map((value) => ({ value })),
        returnByValue: true,
        awaitPromise,
      });
    } catch (error) {
      if (!this.alive.has(contextId) || isCdpFailure(error, 'stale_context')) throw staleError();
      throw error;
    }
    if (response.exceptionDetails) {
      const detail = response.exceptionDetails.exception?.description ?? response.exceptionDetails.text;
      throw new Error(`${what} failed: ${detail}`);
    }
    return response.result.value as T;
  }

  /** Runs a page command with `this` bound to a remote object of our world (a node resolved by CDP). */
  async runOn<T>(objectId: string, command: string, arg?: unknown): Promise<T> {
    const response = await this.session.send<CallFunctionResult>('Runtime.callFunctionOn', {
      functionDeclaration: RUN_FUNCTION,
      objectId,
      arguments: [{ value: command }, { value: arg ?? null }],
      returnByValue: true,
    });
    if (response.exceptionDetails) throw new Error(`page command ${command} failed`);
    return response.result.value as T;
  }

  private forget(contextId: number): void {
    this.alive.delete(contextId);
    this.installed.delete(contextId);
    this.origins.delete(contextId);
    for (const [frameId, id] of this.byFrame) if (id === contextId) this.byFrame.delete(frameId);
  }

  private async evaluateInstall(contextId: number): Promise<void> {
    const response = await this.session.send<CallFunctionResult>('Runtime.evaluate', {
      expression: INSTALL_EXPRESSION,
      contextId,
      returnByValue: true,
    });
    if (response.exceptionDetails) {
      throw new Error(`could not install the page agent: ${response.exceptionDetails.text}`);
    }
  }
}

export function staleError(): TabgateError {
  return new TabgateError(
    'stale_ref',
    'That ref belongs to a page or element that no longer exists (the page navigated or the element was removed). Take a new browser_snapshot.',
  );
}
