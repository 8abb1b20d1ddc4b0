/**
 * Q.850 cause names as FreeSWITCH spells them, so that every driver reports the same
 * `causeName` for a code (contract §4 dispositions are derived from the code).
 */
import { Q850 } from './driver.ts';

const NAMES: Record<number, string> = {
  [Q850.NormalClearing]: 'NORMAL_CLEARING',
  [Q850.UserBusy]: 'USER_BUSY',
  [Q850.NoUserResponse]: 'NO_USER_RESPONSE',
  [Q850.NoAnswer]: 'NO_ANSWER',
  [Q850.CallRejected]: 'CALL_REJECTED',
  [Q850.Congestion]: 'NORMAL_CIRCUIT_CONGESTION',
  [Q850.NormalTemporaryFailure]: 'NORMAL_TEMPORARY_FAILURE',
  [Q850.SwitchingEquipmentCongestion]: 'SWITCH_CONGESTION',
  [Q850.OriginatorCancel]: 'ORIGINATOR_CANCEL',
  [Q850.AllottedTimeout]: 'ALLOTTED_TIMEOUT',
};

/** The name of a Q.850 cause code; unknown codes read as `CAUSE_<n>`. */
export function causeName(cause: number): string {
  return NAMES[cause] ?? `CAUSE_${cause}`;
}
