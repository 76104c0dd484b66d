// The services Switchboard knows. Each slice exports its own entry (serviceEntry.ts says what one holds); the CLI
// (`serve`, `emulate`, `login`, `npm start`) works only through this list, so adding a service is one line here.

import { ISSUEDESK_SERVICE } from './issuedesk/service.js';
import { MESSAGING_SERVICE } from './messaging/service.js';
import type { ServiceEntry, ServiceLogin } from './serviceEntry.js';
import { STORE_SERVICE } from './store/service.js';

export const SERVICES: readonly ServiceEntry[] = [ISSUEDESK_SERVICE, MESSAGING_SERVICE, STORE_SERVICE];

export function findService(id: string): ServiceEntry | undefined {
  return SERVICES.find((service) => service.id === id);
}

/** Expands `all` and checks names; throws with the list of known services. */
export function resolveServices(names: readonly string[]): ServiceEntry[] {
  const wanted = names.length === 0 || names.includes('all') ? SERVICES.map((s) => s.id) : names;
  return [...new Set(wanted)].map((name) => {
    const service = findService(name);
    if (!service) {
      throw new Error(`Unknown service "${name}". Known: ${SERVICES.map((s) => s.id).join(', ')}, all.`);
    }
    return service;
  });
}

/** The services `switchboard login` can connect. */
export const LOGIN_SERVICES = SERVICES.filter((service) => service.login !== undefined);

/** The login of `id`; throws, naming the services that have one, when it has none. */
export function findLogin(id: string): ServiceLogin {
  const login = findService(id)?.login;
  if (login) return login;
  const which = LOGIN_SERVICES.map((service) => `the ${service.id}`).join(' and ');
  const commands = LOGIN_SERVICES.map((service) => `"switchboard login ${service.id}"`).join(', ');
  throw new Error(
    `Only ${which} ${LOGIN_SERVICES.length === 1 ? 'has a login' : 'have logins'} (${commands}); ${findService(id) ? `the ${id} server takes its API credentials from the environment` : `"${id}" is not a service`}.`,
  );
}
