import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STACK_RECORD_FILE, type StackRecord, readStackRecord, recordedStackEnv, removeStackRecord, writeStackRecord } from './stack-record';

describe("npm start's stack record (.data/stack.json) as the admin CLI reads it", () => {
  let dir: string;
  const seed = `SU${'A'.repeat(56)}`;
  const record = (over: Partial<StackRecord> = {}): StackRecord => ({
    pid: process.pid,
    started_at: '2026-11-28T09:00:00.000Z',
    database_url: 'postgres://postgres:secret@127.0.0.1:45678/accounting',
    nats_url: 'nats://127.0.0.1:45679',
    nats_prefix: 'acct',
    nats_admin_seed_file: path.join(dir, 'admin.nkey'),
    gateway_url: 'http://127.0.0.1:8080',
    ...over,
  });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-stack-record-'));
    fs.writeFileSync(path.join(dir, 'admin.nkey'), `${seed}\n`);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("gives the running stack's database, bus, prefix and admin seed for what the environment leaves unset, and says so", () => {
    writeStackRecord(dir, record());
    expect(fs.readFileSync(path.join(dir, STACK_RECORD_FILE), 'utf8')).not.toContain('secret');
    expect(fs.statSync(path.join(dir, STACK_RECORD_FILE)).mode & 0o777).toBe(0o600);
    const r = recordedStackEnv({}, dir);
    expect(r.env).toEqual({ DATABASE_URL: 'postgres://postgres@127.0.0.1:45678/accounting', NATS_URL: 'nats://127.0.0.1:45679', NATS_PREFIX: 'acct', NATS_NKEY_SEED: seed });
    expect(r.note).toMatch(new RegExp(`^using the stack npm start runs \\(pid ${process.pid}, .*stack\\.json\\): database postgres://postgres@127\\.0\\.0\\.1:45678/accounting`));
  });

  it('leaves what the environment sets alone: its bus gets no seed nor prefix of the recorded one', () => {
    writeStackRecord(dir, record());
    expect(recordedStackEnv({ DATABASE_URL: 'postgres://x@db/y', NATS_URL: 'nats://n:4222' }, dir)).toEqual({ env: {} });
    expect(recordedStackEnv({ NATS_URL: 'nats://n:4222' }, dir).env).toEqual({ DATABASE_URL: 'postgres://postgres@127.0.0.1:45678/accounting' });
    expect(recordedStackEnv({ DATABASE_URL: 'postgres://x@db/y', NATS_USER: 'admin', NATS_PREFIX: 'p' }, dir).env).toEqual({ NATS_URL: 'nats://127.0.0.1:45679' });
  });

  it('ignores a record whose npm start no longer runs, and says so', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeStackRecord(dir, record({ pid: gone }));
    const r = recordedStackEnv({}, dir);
    expect(r.env).toEqual({});
    expect(r.note).toMatch(new RegExp(`names npm start pid ${gone}, which is not running: ignored`));
    expect(recordedStackEnv({}, path.join(dir, 'none')).note).toMatch(/^no stack recorded by npm start .* using the defaults$/);
  });

  it("is removed by the npm start that wrote it only (a newer one's stays)", () => {
    writeStackRecord(dir, record({ pid: 4242 }));
    removeStackRecord(dir, process.pid);
    expect(readStackRecord(dir)?.pid).toBe(4242);
    removeStackRecord(dir, 4242);
    expect(readStackRecord(dir)).toBeUndefined();
  });
});
