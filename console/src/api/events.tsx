/**
 * The live activity stream: one EventSource on /rest-api/events/ for the whole app (opened while
 * signed in), turned into TanStack Query invalidations.
 *
 * Events are not applied one by one: each names the query keys it makes stale (INVALIDATES),
 * the keys are collected, and at most once per FLUSH_MS the stale ones are invalidated together.
 * A key whose query is still fetching waits for the next flush instead of cancelling that fetch,
 * so a campaign placing 1,000 calls a second costs the page one refetch per list per second,
 * and the last event is always followed by a fetch that started after it.
 *
 * Query keys start with the API resource's path segment (['campaigns', …], ['cdr', …]): that
 * is what lets an event invalidate every query of a resource at once. Pages that want the
 * events themselves (not just fresher queries) use useLiveEvents(types, onBatch).
 */
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { InvalidationBatcher } from './batcher.ts';
import { API } from './client.ts';
import type { DialerEvent } from './types.ts';
import { eventTypes } from '../../../src/campaign/event-types.ts';

export const FLUSH_MS = 750;

/** Every event type the stream sends (README, "Events and webhooks"): EventSource needs them named. */
export const EVENT_TYPES = eventTypes;

/** Event type (or its prefix before the dot) → the resources whose queries it makes stale. */
export const INVALIDATES: Record<string, string[]> = {
  campaign: ['campaigns', 'sms-campaigns', 'subscriber-list'],
  'call.completed': ['campaigns', 'cdr', 'callrequest', 'users', 'cdr-recent', 'accounts', 'subscriber-list'],
  'subscriber.final': ['campaigns', 'subscriber-list'],
  sms: ['sms-campaigns', 'sms-message', 'users', 'accounts'],
  'sms.opt_out': ['dnc-contact', 'dnc-list'],
  'balance.low': ['users', 'accounts'],
  'import.finished': ['phonebook', 'contact', 'dnc-list', 'dnc-contact'],
  'webhook.disabled': ['webhook'],
};

function resourcesOf(type: string): string[] {
  return INVALIDATES[type] ?? INVALIDATES[type.split('.')[0] ?? ''] ?? [];
}

export type StreamState = 'connecting' | 'live' | 'reconnecting';
type Listener = { types: Set<string> | undefined; onBatch: (events: DialerEvent[]) => void };

interface LiveContext {
  state: StreamState;
  listeners: Set<Listener>;
}
const Context = createContext<LiveContext | undefined>(undefined);

export function LiveEventsProvider({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const [state, setState] = useState<StreamState>('connecting');
  const listeners = useRef(new Set<Listener>()).current;

  useEffect(() => {
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const batcher = new InvalidationBatcher<DialerEvent>(
      {
        isFetching: (resource) => client.isFetching({ queryKey: [resource] }) > 0,
        invalidate: (resource) => void client.invalidateQueries({ queryKey: [resource] }, { cancelRefetch: false }),
      },
      FLUSH_MS,
      (events) => {
        for (const l of listeners) {
          const mine = l.types ? events.filter((e) => (l.types as Set<string>).has(e.type)) : events;
          if (mine.length) l.onBatch(mine);
        }
      },
    );
    const onEvent = (message: MessageEvent<string>) => {
      let event: DialerEvent;
      try {
        event = JSON.parse(message.data) as DialerEvent;
      } catch {
        return;
      }
      batcher.add(event, resourcesOf(event.type));
    };
    const connect = () => {
      const es = new EventSource(`${API}/events/`, { withCredentials: true });
      source = es;
      for (const type of EVENT_TYPES) es.addEventListener(type, onEvent);
      es.onopen = () => {
        setState('live');
        // The stream starts from "now": what changed before it opened (or while it was down) is
        // fetched again, so nothing shown misses an event.
        void client.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
      };
      es.onerror = () => {
        setState('reconnecting');
        // The browser retries by itself after a network error; after an HTTP error (a server
        // restarting answers 503) it gives up, so this retries, a few seconds later.
        if (es.readyState === EventSource.CLOSED) retry = setTimeout(connect, 3000);
      };
    };
    connect();
    return () => {
      source?.close();
      batcher.stop();
      if (retry) clearTimeout(retry);
    };
  }, [client, listeners]);

  return <Context.Provider value={{ state, listeners }}>{children}</Context.Provider>;
}

/** Whether the stream is connected, for the header's indicator. */
export function useStreamState(): StreamState {
  return useContext(Context)?.state ?? 'connecting';
}

/** Calls `onBatch` with the events of `types` (all when omitted), in batches at most every FLUSH_MS. */
export function useLiveEvents(types: readonly string[] | undefined, onBatch: (events: DialerEvent[]) => void): void {
  const ctx = useContext(Context);
  const callback = useRef(onBatch);
  callback.current = onBatch;
  const key = types?.join(',');
  useEffect(() => {
    if (!ctx) return;
    const listener: Listener = { types: key ? new Set(key.split(',')) : undefined, onBatch: (e) => callback.current(e) };
    ctx.listeners.add(listener);
    return () => {
      ctx.listeners.delete(listener);
    };
  }, [ctx, key]);
}
