import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { api } from './api/client';
import { ApiError } from './api/errors';
import type { Passkey, SessionInfo } from './api/types';

/**
 * Passkeys (WebAuthn) through @simplewebauthn/browser: the server makes the options and checks the
 * answer (docs/dashboard.md: `/session/passkey/options` then `/session/passkey` to sign in,
 * `/passkeys/options` then `POST /passkeys` to register). Loaded only when a passkey is used.
 */
async function webauthn() {
  return import('@simplewebauthn/browser');
}

/** Whether this browser can use passkeys at all (the button is hidden otherwise). */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';
}

/** The browser's own errors (cancelled, no passkey for this site) as a sentence for the member. */
function browserError(err: unknown): Error {
  if (err instanceof ApiError) return err;
  const name = err instanceof Error ? err.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError') return new Error('The passkey request was cancelled or timed out.');
  if (name === 'InvalidStateError') return new Error('This authenticator already holds a passkey for your account.');
  return new Error(`The passkey could not be used${err instanceof Error && err.message ? `: ${err.message}` : '.'}`);
}

/** Signs in with a passkey: 200 like `POST /session` ({ member, csrf_token } and the cookie). */
export async function signInWithPasskey(): Promise<SessionInfo> {
  const { startAuthentication } = await webauthn();
  const { data: optionsJSON } = await api.post<{ data: PublicKeyCredentialRequestOptionsJSON }>('/session/passkey/options', {}, { quiet401: true });
  let response;
  try {
    response = await startAuthentication({ optionsJSON });
  } catch (err) {
    throw browserError(err);
  }
  const { data } = await api.post<{ data: SessionInfo }>('/session/passkey', { response }, { quiet401: true });
  return data;
}

/** Registers a passkey for the signed-in member, named as they chose (optional). */
export async function registerPasskey(name?: string): Promise<Passkey> {
  const { startRegistration } = await webauthn();
  const { data: optionsJSON } = await api.post<{ data: PublicKeyCredentialCreationOptionsJSON }>('/passkeys/options', {});
  let response;
  try {
    response = await startRegistration({ optionsJSON });
  } catch (err) {
    throw browserError(err);
  }
  const { data } = await api.post<{ data: Passkey }>('/passkeys', { ...(name ? { name } : {}), response });
  return data;
}
