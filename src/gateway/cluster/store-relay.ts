/**
 * Nodes sharing one SQLite file (one machine, one TABGATE_HOME) have no change feed from their store,
 * unlike PostgreSQL's LISTEN/NOTIFY: a pairing made or revoked through one node, or a site granted,
 * would reach the others' memory only at their restart. So each node announces its own writes of those
 * rows on a Redis channel, and the others reload what changed, as the PostgreSQL feed makes them do.
 * After a lost connection a node reloads everything: what was announced meanwhile is gone.
 */
import type { Logger } from '../../log/logger.js';
import type { Store, StoreChange } from '../store/store.js';
import type { RedisLink } from './redis-link.js';

const CHANNEL = 'tg:store:changed';

export async function relayStoreChanges(
  store: Store,
  link: RedisLink,
  listener: (change: StoreChange) => void,
  log: Logger,
): Promise<() => void> {
  const subscriber = link.command.duplicate({ name: `tg-store-${link.nodeId}` });
  subscriber.on('error', () => undefined); // the command connection's own handler reports Redis loss
  let ready = false;
  subscriber.on('ready', () => {
    if (ready) listener({ table: '*', key: '*' });
    ready = true;
  });
  await subscriber.connect();
  await subscriber.subscribe(CHANNEL, (message) => {
    const [node, table, ...key] = message.split(' ');
    if (node !== link.nodeId) listener({ table: table as StoreChange['table'], key: key.join(' ') });
  });
  const announce = (table: StoreChange['table'], key: string) =>
    link.command.sendCommand(['PUBLISH', CHANNEL, `${link.nodeId} ${table} ${key}`]).catch((error: unknown) =>
      log.warn('a store change was not announced to the other gateways', {
        table,
        reason: (error as Error).message,
      }),
    );
  const pairing = store.pairingGrants;
  const insert = pairing.insert.bind(pairing);
  const revoke = pairing.revoke.bind(pairing);
  pairing.insert = async (grant) => {
    const made = await insert(grant);
    void announce('pairing_grants', made.grant_id);
    return made;
  };
  pairing.revoke = async (grantId, at) => {
    const revoked = await revoke(grantId, at);
    void announce('pairing_grants', grantId);
    return revoked;
  };
  const sites = store.siteGrants;
  const request = sites.request.bind(sites);
  const grant = sites.grant.bind(sites);
  const revokeSite = sites.revoke.bind(sites);
  const dropSession = sites.dropSession.bind(sites);
  const bySession =
    <A extends unknown[], R>(write: (sessionId: string, ...rest: A) => Promise<R>) =>
    async (sessionId: string, ...rest: A): Promise<R> => {
      const result = await write(sessionId, ...rest);
      void announce('site_grants', sessionId);
      return result;
    };
  sites.request = bySession(request);
  sites.grant = bySession(grant);
  sites.revoke = bySession(revokeSite);
  sites.dropSession = bySession(dropSession);
  return () => subscriber.destroy();
}
