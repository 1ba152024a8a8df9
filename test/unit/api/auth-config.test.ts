/** The auth knobs: LEDGER_USER_RIGHTS and LEDGER_AUTH_PUBLIC_KEY_FILE as start-up sees them. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authSettingsFromConfig } from '../../../src/api/auth/verifier';
import { ConfigError, loadConfig } from '../../../src/internal/config';

describe('ledger auth configuration', () => {
  it('reads per-user read-as parties from LEDGER_USER_RIGHTS', () => {
    expect(loadConfig({}).ledger.userRights).toEqual({});
    expect(loadConfig({ LEDGER_USER_RIGHTS: '{"wallet-1":["alice::1220aa","bob::1220bb"],"idle":[]}' }).ledger.userRights).toEqual({
      'wallet-1': ['alice::1220aa', 'bob::1220bb'],
      idle: [],
    });
  });

  it.each(['alice=alice::1220aa', '{"alice":"alice::1220aa"}', '["alice"]', '{"alice":[""]}', '{"":["p"]}'])(
    'stops at start-up on LEDGER_USER_RIGHTS=%s',
    (value) => {
      expect(() => loadConfig({ LEDGER_USER_RIGHTS: value })).toThrow(
        new ConfigError(
          `Invalid configuration: LEDGER_USER_RIGHTS=${JSON.stringify(value)}: expected a JSON object mapping user ids to arrays of party ids, such as {"user-1":["alice::1220…"]}.`,
        ),
      );
    },
  );

  it('has no verifier until a key is configured', () => {
    expect(authSettingsFromConfig(loadConfig({}).ledger)).toBeUndefined();
    expect(authSettingsFromConfig(loadConfig({ LEDGER_AUTH_JWKS_URL: 'https://idp.test/jwks' }).ledger)).toMatchObject({
      jwksUrl: 'https://idp.test/jwks',
    });
  });

  it('reads the PEM key file, and names a file that is not a usable key', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'auth-key-'));
    const cert = path.join(__dirname, 'auth-fixtures', 'rsa-test-cert.pem');
    expect(authSettingsFromConfig(loadConfig({ LEDGER_AUTH_PUBLIC_KEY_FILE: cert }).ledger)?.publicKeyPem).toContain('BEGIN CERTIFICATE');
    const junk = path.join(dir, 'junk.pem');
    fs.writeFileSync(junk, 'not a key');
    expect(() => authSettingsFromConfig(loadConfig({ LEDGER_AUTH_PUBLIC_KEY_FILE: junk }).ledger)).toThrow(
      /^Invalid configuration: LEDGER_AUTH_PUBLIC_KEY_FILE=".*junk.pem": /,
    );
  });
});
