/**
 * TCP proxies in front of a real PostgreSQL, for faults of the network between one client and it;
 * they forward every byte unchanged and fake nothing of PostgreSQL's.
 *
 * cutAfterCommit: a proxy that cuts one connection as a network failure would,
 * at the worst moment for a client: just after the server committed a transaction, before the
 * commit's answer reaches the client. The commit went through; the client only sees its
 * connection end ("Connection terminated unexpectedly"), and cannot tell whether it did.
 *
 * It reads the client's messages (the PostgreSQL wire protocol, v3: a startup message, then a
 * type byte and a length each) only to watch their SQL, and forwards every byte unchanged. The
 * first statement matching `marker` is the one cut, once: inside a transaction, after the
 * transaction's commit; outside one (or a BEGIN itself), after the statement's own answer. Every
 * other connection, before and after, goes through untouched.
 */
import net from 'node:net';

export interface CutProxy {
  port: number;
  /** Resolves once the connection was cut after its commit. */
  cut: Promise<void>;
  close(): Promise<void>;
}

/** The SQL text of a simple Query ('Q') or a Parse ('P') message's body, else undefined. */
function sqlOf(type: number, body: Buffer): string | undefined {
  if (type === 0x51) return body.subarray(0, body.indexOf(0)).toString();
  if (type === 0x50) {
    const name = body.indexOf(0);
    return body.subarray(name + 1, body.indexOf(0, name + 1)).toString();
  }
  return undefined;
}

/**
 * A proxy on a loopback port: each client's connection gets one of its own to PostgreSQL on
 * `targetPort`, the two closed together; `forward` moves their bytes. `close` ends them all.
 */
async function listenProxy(targetPort: number, forward: (client: net.Socket, server: net.Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const server = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
    forward(client, server);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

export async function cutAfterCommit(targetPort: number, marker: RegExp): Promise<CutProxy> {
  let fired = false;
  let cutDone!: () => void;
  const cut = new Promise<void>((resolve) => (cutDone = resolve));
  const proxy = await listenProxy(targetPort, (client, server) => {
    let pending = Buffer.alloc(0);
    let startup = true;
    let inTransaction = false;
    let marked = false;
    let committing = false;
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (startup) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          startup = pending.readInt32BE(4) === 80877103; // an SSLRequest is followed by the real startup
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const text = sqlOf(pending[0], pending.subarray(5, 1 + length));
        pending = pending.subarray(1 + length);
        if (text === undefined || fired) continue;
        if (marker.test(text)) {
          if (inTransaction) marked = true;
          else committing = true;
        } else if (/^\s*begin\b/i.test(text)) inTransaction = true;
        else if (/^\s*(commit|rollback)\s*;?\s*$/i.test(text)) {
          if (marked && /^\s*commit/i.test(text)) committing = true;
          inTransaction = marked = false;
        }
      }
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (!committing) {
        client.write(chunk);
        return;
      }
      // The commit's answer (or the lone statement's): the server has committed. The client never hears of it.
      committing = false;
      fired = true;
      client.destroy();
      server.destroy();
      cutDone();
    });
  });
  return { ...proxy, cut };
}

export interface PartitionProxy {
  port: number;
  /** From now on, no byte goes either way, on the connections open and on new ones, until heal(). */
  partition(): void;
  /** Every byte held meanwhile goes on, as TCP delivers what it retransmitted once a partition heals. */
  heal(): void;
  close(): Promise<void>;
}

/**
 * A proxy that partitions one client from PostgreSQL: while partitioned it holds every byte either
 * side sends (on the connections open, and on new ones), so the client's statements wait for
 * answers that do not come, with its connections open, as when a network link drops its packets.
 * Healed, what it held goes on, in order, as TCP delivers what it retransmitted.
 */
export async function partitionProxy(targetPort: number): Promise<PartitionProxy> {
  let held: (() => void)[] | undefined;
  const forward = (to: net.Socket) => (chunk: Buffer) => (held ? held.push(() => to.write(chunk)) : to.write(chunk));
  const proxy = await listenProxy(targetPort, (client, server) => {
    client.on('data', forward(server));
    server.on('data', forward(client));
  });
  return {
    ...proxy,
    partition: () => {
      held ??= [];
    },
    heal: () => {
      const writes = held ?? [];
      held = undefined;
      for (const write of writes) write();
    },
  };
}
