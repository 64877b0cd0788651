import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkScopes } from './key-actions.ts';
import { AUTOMATION_PRESET, isScope, permissionsMap, SCOPES } from './scopes.ts';

describe('scopes', () => {
  it('are the six of spec 5.3, send_sms grantable since SMS shipped', () => {
    assert.deepEqual(
      [...SCOPES],
      ['read_assistants', 'read_calls', 'read_analytics', 'outbound_calls', 'manage_webhooks', 'send_sms'],
    );
  });

  it('the automation preset is read_assistants, read_calls, manage_webhooks', () => {
    assert.deepEqual([...AUTOMATION_PRESET], ['read_assistants', 'read_calls', 'manage_webhooks']);
  });

  it('permissions list every scope with a boolean', () => {
    assert.deepEqual(permissionsMap(['read_calls']), {
      read_assistants: false,
      read_calls: true,
      read_analytics: false,
      outbound_calls: false,
      manage_webhooks: false,
      send_sms: false,
    });
  });

  it('checks refuse unknown scopes, one issue each, and take send_sms', () => {
    assert.equal(isScope('read_calls'), true);
    assert.equal(isScope('admin'), false);
    assert.deepEqual(checkScopes(['read_calls']), []);
    assert.equal(checkScopes(['admin', 'send_sms', 'read_calls', 'root']).length, 2);
    assert.deepEqual(checkScopes(['send_sms']), []);
  });
});
