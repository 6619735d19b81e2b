import type { Database } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { assignmentConflict, findHolder } from '../../modules/holders/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import { findDevice, updateDevice } from './devices-repository.js';

/**
 * Gives the device `id` to the holder `holderId` (null: to nobody), docs/decisions.md "Assigning
 * requisites and phones to holders": a device of another holder moves only with `move`
 * (HOLDER_ASSIGNMENT_CONFLICT otherwise, nothing written). The device's row is locked, so that two
 * parallel assignments are judged one after the other. NOT_FOUND for an unknown device;
 * VALIDATION_ERROR for an unknown holder. Audited `device.holder` with the holder before and after.
 * Answers `{ id, holder_id }`.
 */
export async function assignDeviceHolder(
  database: Database,
  input: { id: string; holderId: string | null; move: boolean; actor: AdminActor },
): Promise<{ id: string; holder_id: string | null }> {
  const { id, holderId, move, actor } = input;
  if (!isUuid(id)) throw new AppError('NOT_FOUND');
  return database.db.transaction(async (tx) => {
    const device = await findDevice(tx, id, true);
    if (!device) throw new AppError('NOT_FOUND');
    if (holderId !== null && !(isUuid(holderId) && (await findHolder(tx, holderId))))
      throw invalidField('holder_id', 'unknown holder');
    const before = device.holderId;
    if (before === holderId) return { id, holder_id: holderId };
    // Taking a phone away from its holder is a move too, whether to another holder or to none.
    if (before !== null && !move) throw assignmentConflict('holder_id', [[id, before]]);
    await updateDevice(tx, id, { holderId });
    await writeAudit(tx, actor, {
      action: 'device.holder',
      targetType: 'device',
      targetId: id,
      before: { holder_id: before },
      after: { holder_id: holderId },
    });
    return { id, holder_id: holderId };
  });
}
