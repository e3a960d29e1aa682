import { SERVICE_MANIFEST, type ServiceName, type ServiceNames } from './manifest';

export type { ServiceName } from './manifest';

/** The processes of the system, by name: the gateway and the services behind it (SERVICE_MANIFEST order). */
export const SERVICES = Object.freeze(SERVICE_MANIFEST.map((s): ServiceName => s.name)) as unknown as ServiceNames;

/** Operator commands a service answers outside the public API (e.g. reporting's rebuild). */
export function adminSubject(prefix: string, service: ServiceName, command: string): string {
  return `${prefix}.admin.${service}.${command}`;
}
