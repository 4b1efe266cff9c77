import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../core/config.js';
import { maskedProviders, unmaskProviders } from './settings-secrets.js';

test("the settings page shows providers' secrets and Apple's key as ****, and a save as shown keeps them", () => {
  const key =
    '-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\n-----END PRIVATE KEY-----';
  const { providers } = parseConfig({
    users: {
      providers: [
        { id: 'gh', kind: 'github', clientId: 'c1', clientSecret: 'a-secret' },
        {
          id: 'apple',
          kind: 'apple',
          clientId: 'c2',
          apple: { teamId: 'TEAM123456', keyId: 'KEY1234567', privateKey: key },
        },
      ],
    },
  }).users;
  const shown = maskedProviders(providers);
  assert.ok(!shown.includes('a-secret') && !shown.includes('PRIVATE KEY'), shown);
  assert.deepEqual(unmaskProviders(shown, providers), JSON.parse(JSON.stringify(providers)));
});
