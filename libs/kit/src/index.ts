// kit's public surface, by name: what the services, tools and tests use (a module's other exports stay its own).
export { ConfigError, OPS_PORT_DEFAULTS, baseConfigSpec, databaseUrlOf, gatewayPortVar, loadConfig, natsAuthSpec, opsPortVar, v, type VarSpec } from './config';
export { createLogger, unredacted, type Logger } from './logger';
export { LATENCY_BUCKETS, createMetrics, type ServiceMetrics } from './metrics';
export { RpcClient, RpcServer, connectNats, natsAuthOptions } from './rpc';
export { RPC_IDEMPOTENCY_MIGRATION } from './rpc-idempotency';
export {
  type EntityManager,
  databaseExists,
  addMetadataColumns,
  databaseName,
  ddlMigration,
  dropDatabase,
  ensureDatabase,
  migrate,
  openOrm,
  scopedTable,
  totalsTable,
  type MigrationDef,
  type Orm,
  versionsOf,
} from './db';
export { reportListening, type ListeningReport } from './ops';
export { runMain } from './lifecycle';
export { migrateMain, startRuntime, type ServiceRuntime } from './runtime';
export { OUTBOX_DDL, OUTBOX_INSERT_SQL, Outbox, addToOutbox, dropEventsStream, ensureEventsStream, type OutboxMessage, type OutboxOptions } from './outbox';
export { isBackendUnavailable, logRetriedFailure } from './unavailable';
export { findAllInScope, findInScope, scopeKey, scopeOf, scopedIdKey, type Scope } from './scope';
export { entityRows, getInScope, insertEntity, insertInScopeOf, positional, statement, transactionQuery, withQuery, type Query, type Statement } from './sql';
export { registerReads } from './reads';
export { schemaDrift } from './drift';
export {
  migrateService,
  ormOpener,
  schemaOf,
  serviceConfigSpec,
  startService,
  startWorkers,
  wireService,
  type ServiceDefinition,
  type ServiceWiring,
  type Worker,
} from './service';
export { decodeJson, encodeJson } from './payloads';
export { BATCH_LINGER_MS, CONSUMED_DDL, CONSUMER_MIGRATIONS, DEFAULT_ACK_WAIT_MS, EventConsumer, claimEvent, eventConsumerWorker, type ConsumedEvent } from './consumer';
export { columns, scopedEntity, type Scoped } from './columns';
export { decryptSecret, encryptSecret, parseSecretKey } from './secrets';
export { cursorPage, keysetSql, listQuery, pageInMemory, unknownCursor, type ListQuery } from './lists';
export { generateBusNkeys, passwordEnvOf, renderNatsAuthorization } from './nats-auth';
export { retryOnConflict } from './conflicts';
export { STACK_RECORD_FILE, recordedStackEnv, removeStackRecord, stackDataDir, withoutPassword, writeStackRecord, type StackRecord } from './stack-record';
