// Shared by the k6 scenarios: the gateway URL, the key and its headers, integer settings.

export const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');

export function requireKey(script) {
  const key = __ENV.API_KEY;
  if (!key) throw new Error(`API_KEY is required: k6 run -e API_KEY=<key> deploy/k6/${script}`);
  return key;
}

export function headersFor(key) {
  return { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json' };
}

export function envInt(name, def) {
  const raw = __ENV[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}
