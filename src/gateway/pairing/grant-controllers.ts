/**
 * Which controllers each pairing grant opened, so revoking the grant can take them back at once: its
 * unused tickets are burnt, its controllers detached (pending work cancelled, lanes unbound) and their
 * sockets closed. Filled from the registration route; in memory, like the sockets it describes.
 */
import { settle, type ControllerBroker, type MaybePromise } from '../broker/controller-broker.js';
import { identityKey, type ControllerScope } from '../broker/scope.js';
import type { RegistrationResponse } from '../controller-registration.js';
import type { Caller } from '../service.js';
import { ControllerConnection } from '../ws/controller-connection.js';

/** A cluster broker that lost Redis cannot take these back now; the pairing itself is revoked anyway. */
function quietly(result: MaybePromise<unknown>): void {
  if (result instanceof Promise) result.catch(() => undefined);
}

/** The close code a revoked controller's socket gets: policy violation. */
export const REVOKED_CLOSE_CODE = 1008;

/** A session a paired extension serves, for the dashboard. */
export interface GrantSession {
  session_id: string;
  connected: boolean;
}

interface Opened {
  scopes: Map<string, ControllerScope>;
  tickets: Set<string>;
}

export class GrantControllers {
  private readonly byGrant = new Map<string, Opened>();

  /** The registration route's hook: remembers what a pairing token registered. */
  recordRegistration(caller: Caller, registration: RegistrationResponse): void {
    if (caller.credential !== 'pairing_token' || !caller.credentialId) return;
    let opened = this.byGrant.get(caller.credentialId);
    if (!opened) this.byGrant.set(caller.credentialId, (opened = { scopes: new Map(), tickets: new Set() }));
    const scope = registration.scope as ControllerScope;
    opened.scopes.set(identityKey(scope), scope);
    // Tickets live 30 s; keep only a handful per grant so this never grows.
    opened.tickets.add(registration.ticket);
    if (opened.tickets.size > 32) opened.tickets.delete(opened.tickets.values().next().value as string);
  }

  /**
   * The sessions a grant's controllers registered for and whether each is connected now, as this
   * gateway's broker knows it (in a cluster, its last view: for people to read, never to route by).
   */
  sessionsOf(grantId: string, broker: ControllerBroker): GrantSession[] {
    const opened = this.byGrant.get(grantId);
    if (!opened) return [];
    const held: GrantSession[] = [];
    for (const [key, scope] of opened.scopes) {
      const lane = broker.laneState({
        principalId: scope.principal_id,
        profileId: scope.profile_id,
        sessionId: scope.session_id,
        transportFamily: scope.transport_family,
      });
      const controller = lane.controllers.find((c) => identityKey(c.scope) === key);
      if (controller) held.push({ session_id: scope.session_id, connected: controller.connected });
    }
    return held;
  }

  /** Takes back everything the grant opened. */
  revoke(grantId: string, broker: ControllerBroker): void {
    const opened = this.byGrant.get(grantId);
    this.byGrant.delete(grantId);
    if (!opened) return;
    // Consuming a ticket is how it is burnt: an unused one can then never open a socket.
    for (const ticket of opened.tickets) quietly(broker.consumeTicket(ticket));
    for (const scope of opened.scopes.values()) {
      quietly(
        settle(broker.detachController(scope), (owner) => {
          if (owner instanceof ControllerConnection) owner.close(REVOKED_CLOSE_CODE, 'pairing revoked');
        }),
      );
    }
  }
}
