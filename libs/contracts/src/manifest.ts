/**
 * One entry per process of the system. The local stack runner, the e2e stack, the deployment files
 * (docker-compose.yml, Prometheus, the alerts and the Helm chart's service list, written by
 * `npm run deploy:gen`) and the ops-port defaults all read this list, so adding a service is its
 * folder (services/<name>) plus one entry here.
 */
export interface ServiceManifestEntry {
  name: ServiceName;
  /** Default port of the ops server (/metrics, /healthz, /readyz); unique. */
  opsPort: number;
  /** Its RPC queue group (prefixed by NATS_PREFIX at run time); null for a service serving no RPC. */
  queue: string | null;
  /** Writes journal entries and publishes from an outbox: runs the shared posting migrations and the relay. */
  posts: boolean;
  /** Needs S3 storage (S3_ENDPOINT, the bucket). */
  s3: boolean;
  /** Serves the public HTTP API (only the gateway). */
  public: boolean;
}

/** In start order: services first, the gateway (which sends them work) last. */
const ENTRIES = [
  { name: 'receivables', opsPort: 9101, queue: 'receivables', posts: true, s3: false, public: false },
  { name: 'payables', opsPort: 9102, queue: 'payables', posts: true, s3: false, public: false },
  { name: 'documents', opsPort: 9104, queue: 'documents', posts: false, s3: true, public: false },
  { name: 'reporting', opsPort: 9103, queue: 'reporting', posts: false, s3: false, public: false },
  { name: 'webhook-dispatcher', opsPort: 9105, queue: 'webhook-dispatcher', posts: false, s3: false, public: false },
  { name: 'gateway', opsPort: 9100, queue: null, posts: false, s3: false, public: true },
] as const satisfies readonly (Omit<ServiceManifestEntry, 'name'> & { name: string })[];

/** The name of a process of the system: an entry of SERVICE_MANIFEST. */
export type ServiceName = (typeof ENTRIES)[number]['name'];

/** The names of SERVICE_MANIFEST, in its order (a tuple type, so `ServiceName` can be spelled from it). */
export type ServiceNames = NamesOf<typeof ENTRIES>;
type NamesOf<T extends readonly { name: string }[]> = { readonly [K in keyof T]: T[K] extends { name: infer N } ? N : never };

export const SERVICE_MANIFEST: readonly ServiceManifestEntry[] = Object.freeze(ENTRIES);

export function manifestOf(name: ServiceName): ServiceManifestEntry {
  const m = SERVICE_MANIFEST.find((s) => s.name === name);
  if (!m) throw new Error(`${name} is not in SERVICE_MANIFEST`);
  return m;
}

/** Repository folder of a service, relative to the root. */
export function serviceDir(name: ServiceName): string {
  return `services/${name}`;
}
