/**
 * Whether a piece of work this engine claimed (a call, an SMS message) may still go out, asked by
 * each just before it goes (OriginateRequest.mayDial, SmsSubmit.maySend). While the engine's
 * heartbeat is fresh no other engine can have taken it for dead: yes, at once, with no query and
 * no await. After a silence of its own, `ours` says which are still its own, once a heartbeat has
 * gone through again (engine.ts afterSilence). The ids that ask in the same turn (every call let
 * through together when a FreeSWITCH connection is back, a batch's messages) share one `ours`;
 * one that asks once it has begun waits for the next, so none is answered by a check that began
 * before it asked.
 */
export type Gate = (id: number) => true | Promise<boolean>;

export function silenceGate(fresh: () => boolean, ours: (ids: number[]) => Promise<Set<number>>): Gate {
  let asking: { ids: number[]; answer: Promise<Set<number>> } | undefined;
  return (id) => {
    if (fresh()) return true;
    if (!asking) {
      const ids: number[] = [];
      const answer = Promise.resolve().then(() => {
        asking = undefined;
        return ours(ids);
      });
      asking = { ids, answer };
    }
    asking.ids.push(id);
    return asking.answer.then((set) => set.has(id));
  };
}
