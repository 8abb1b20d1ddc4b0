/**
 * `max_xfer` (issue 16, item 10): at most that many transfers (call-transfer sections, type 6) of
 * a campaign at once; 0 = no limit. Counted in this engine process — several engines sharing a
 * PostgreSQL each allow max_xfer (README "Retries, callbacks, recycling and line caps", `max_xfer`).
 */
const active = new Map<number, number>();

/**
 * Takes a transfer slot of the campaign: the function that gives it back, or null when
 * `maxXfer` transfers are already up.
 */
export function takeTransferSlot(campaignId: number, maxXfer: number): (() => void) | null {
  const n = active.get(campaignId) ?? 0;
  if (maxXfer > 0 && n >= maxXfer) return null;
  active.set(campaignId, n + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    const left = (active.get(campaignId) ?? 1) - 1;
    if (left > 0) active.set(campaignId, left);
    else active.delete(campaignId);
  };
}
