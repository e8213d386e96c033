export * from './broker.js';
export * from './scope.js';
export * from './tickets.js';
export * from './lanes.js';
export * from './commands.js';
export * from './controller-broker.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../../log/logger.js';
import { Broker } from './broker.js';
import { InMemoryCommandBus } from './commands.js';
import { InMemoryLaneRegistry } from './lanes.js';
import { InMemoryTicketStore } from './tickets.js';
import type { BindingObserver } from '../session-binding.js';

/** The embedded default: all broker state in this process. */
export function createInMemoryBroker(options: {
  clock: Clock;
  log: Logger;
  commandTimeoutMs: number;
  bindings?: BindingObserver;
}): Broker {
  return new Broker({
    ...options,
    tickets: new InMemoryTicketStore(),
    lanes: new InMemoryLaneRegistry(),
    commands: new InMemoryCommandBus(),
  });
}
