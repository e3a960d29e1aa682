/** The processes of the system, by name: the gateway and the services behind it. */
export const SERVICES = ['gateway', 'receivables', 'payables', 'documents', 'reporting', 'webhook-dispatcher'] as const;
export type ServiceName = (typeof SERVICES)[number];
