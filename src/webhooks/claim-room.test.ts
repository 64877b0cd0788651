import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ClaimRoom, roomForClaim } from './claim-room.ts';

const inFlight = new Map([
  ['sub_a', 2],
  ['sub_b', 5],
]);

describe('room for a claim while others wait for the database', () => {
  it('alone: the free slots, and each subscription its share less what it has in flight', () => {
    const room = roomForClaim({ slots: 20, perSubscription: 5, inFlight, claiming: [] });
    assert.equal(room.limit, 20);
    assert.deepEqual(
      [...room.rooms],
      [
        ['sub_a', 3],
        ['sub_b', 0],
      ],
    );
    assert.equal(room.others, 5);
  });

  it('beside a claim in flight: only what that claim could not take, however it turns out', () => {
    const first: ClaimRoom = roomForClaim({ slots: 20, perSubscription: 5, inFlight, claiming: [] });
    // Meanwhile sub_b finished one attempt and its slot came free.
    const sooner = new Map([...inFlight, ['sub_b', 4]]);
    const second = roomForClaim({ slots: 21, perSubscription: 5, inFlight: sooner, claiming: [first] });
    assert.equal(second.limit, 1);
    assert.deepEqual(
      [...second.rooms],
      [
        ['sub_a', 0],
        ['sub_b', 1],
      ],
    );
    assert.equal(second.others, 0, 'a subscription the first claim did not name may have been filled by it');
  });

  it('a subscription held below the share by its timeouts gets only what it is held to', () => {
    const held = new Map([
      ['sub_a', 1],
      ['sub_c', 2],
    ]);
    const room = roomForClaim({ slots: 20, perSubscription: 5, held, inFlight, claiming: [] });
    assert.deepEqual(
      [...room.rooms].sort(),
      [
        ['sub_a', -1],
        ['sub_b', 0],
        ['sub_c', 2],
      ],
      'sub_a has two in flight and is held to one; sub_c has none in flight',
    );
    assert.equal(room.others, 5);
  });
});
